package io.tributary.delta;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;

/**
 * The per-column accumulators behind {@link FileStatistics}: one node per column of the row schema, nested as the
 * structs are, each keeping the null count and, for the types Delta bounds, the min and max seen so far.
 */
final class ColumnStats {
    private ColumnStats() {
    }

    static Node[] children(Schema record, StructType struct, Column parent) {
        List<Schema.Field> avroFields = record.getFields();
        Node[] nodes = new Node[avroFields.size()];
        for (int i = 0; i < nodes.length; i++) {
            StructField f = struct.at(i);
            Column col = parent.appendNestedField(f.getName());
            Schema avro = SchemaMapping.nonNull(avroFields.get(i).schema(), f.getName());
            nodes[i] = node(avro, f.getDataType(), col);
        }
        return nodes;
    }

    private static Node node(Schema avro, DataType type, Column col) {
        if (type instanceof StructType st) {
            return new StructNode(col, children(avro, st, col));
        }
        if (type instanceof IntegerType || type instanceof LongType || type instanceof DateType
                || type instanceof TimestampType || type instanceof TimestampNTZType) {
            return new LongNode(col, type);
        }
        if (type instanceof FloatType || type instanceof DoubleType) {
            return new DoubleNode(col, type);
        }
        if (type instanceof DecimalType dt) {
            return new DecimalNode(col, dt);
        }
        if (type instanceof StringType) {
            return new StringStats(col);
        }
        return new Node(col); // boolean, binary, array, map: Delta keeps only their null counts
    }

    static class Node {
        final Column column;
        long nulls;

        Node(Column column) {
            this.column = column;
        }

        void add(Object value) {
            if (value == null) {
                nulls++;
            } else {
                addValue(value);
            }
        }

        /** A value that is not null; only a bounded type keeps anything of it. */
        void addValue(Object value) {}

        /** The parent struct was null, so this leaf is null in the row. */
        void addNull() {
            nulls++;
        }

        void collect(Map<Column, Literal> min, Map<Column, Literal> max, Map<Column, Long> nullCounts) {
            nullCounts.put(column, nulls);
            Literal lower = min();
            if (lower != null) {
                min.put(column, lower);
            }
            Literal upper = max();
            if (upper != null) {
                max.put(column, upper);
            }
        }

        /** The lower bound Delta keeps for the column, or null when it keeps none. */
        Literal min() {
            return null;
        }

        /** The upper bound, or null when there is none (a string max may have none though its min exists). */
        Literal max() {
            return null;
        }
    }

    static final class StructNode extends Node {
        private final Node[] children;

        StructNode(Column column, Node[] children) {
            super(column);
            this.children = children;
        }

        @Override
        void add(Object value) {
            if (value == null) {
                addNull();
                return;
            }
            IndexedRecord r = (IndexedRecord) value;
            for (int i = 0; i < children.length; i++) {
                children[i].add(r.get(i));
            }
        }

        @Override
        void addNull() {
            for (Node c : children) {
                c.addNull();
            }
        }

        @Override
        void collect(Map<Column, Literal> min, Map<Column, Literal> max, Map<Column, Long> nullCounts) {
            for (Node c : children) {
                c.collect(min, max, nullCounts);
            }
        }
    }

    /** int, long, date (days), timestamp and timestamp_ntz (microseconds). */
    static final class LongNode extends Node {
        private final DataType type;
        private long min = Long.MAX_VALUE;
        private long max = Long.MIN_VALUE;
        private boolean any;

        LongNode(Column column, DataType type) {
            super(column);
            this.type = type;
        }

        @Override
        void addValue(Object value) {
            long v = toLong(value);
            any = true;
            min = Math.min(min, v);
            max = Math.max(max, v);
        }

        private static long toLong(Object value) {
            if (value instanceof Number n) {
                return n.longValue();
            }
            if (value instanceof Instant i) {
                return ChronoUnit.MICROS.between(Instant.EPOCH, i);
            }
            if (value instanceof LocalDateTime t) {
                return ChronoUnit.MICROS.between(Instant.EPOCH, t.toInstant(ZoneOffset.UTC));
            }
            if (value instanceof LocalDate d) {
                return d.toEpochDay();
            }
            throw new IllegalArgumentException("unexpected value of " + value.getClass().getName());
        }

        @Override
        Literal min() {
            return any ? literal(min) : null;
        }

        @Override
        Literal max() {
            return any ? literal(max) : null;
        }

        private Literal literal(long v) {
            if (type instanceof IntegerType) {
                return Literal.ofInt((int) v);
            } else if (type instanceof LongType) {
                return Literal.ofLong(v);
            } else if (type instanceof DateType) {
                return Literal.ofDate((int) v);
            } else if (type instanceof TimestampType) {
                return Literal.ofTimestamp(v);
            }
            return Literal.ofTimestampNtz(v);
        }
    }

    static final class DoubleNode extends Node {
        private final DataType type;
        private double min = Double.POSITIVE_INFINITY;
        private double max = Double.NEGATIVE_INFINITY;
        private boolean any;
        private boolean nan;

        DoubleNode(Column column, DataType type) {
            super(column);
            this.type = type;
        }

        @Override
        void addValue(Object value) {
            double v = ((Number) value).doubleValue();
            if (Double.isNaN(v)) {
                nan = true; // readers disagree on where NaN sorts: no bounds for this column rather than wrong ones
                return;
            }
            any = true;
            if (v < min) {
                min = v;
            }
            if (v > max) {
                max = v;
            }
        }

        @Override
        Literal min() {
            return any && !nan ? literal(min) : null;
        }

        @Override
        Literal max() {
            return any && !nan ? literal(max) : null;
        }

        private Literal literal(double v) {
            return type instanceof FloatType ? Literal.ofFloat((float) v) : Literal.ofDouble(v);
        }
    }

    static final class DecimalNode extends Node {
        private final DecimalType type;
        private BigDecimal min;
        private BigDecimal max;

        DecimalNode(Column column, DecimalType type) {
            super(column);
            this.type = type;
        }

        @Override
        void addValue(Object value) {
            BigDecimal v = toDecimal(value);
            if (min == null || v.compareTo(min) < 0) {
                min = v;
            }
            if (max == null || v.compareTo(max) > 0) {
                max = v;
            }
        }

        private BigDecimal toDecimal(Object value) {
            if (value instanceof BigDecimal d) {
                return d.setScale(type.getScale());
            }
            byte[] unscaled;
            if (value instanceof ByteBuffer b) {
                ByteBuffer dup = b.duplicate();
                unscaled = new byte[dup.remaining()];
                dup.get(unscaled);
            } else if (value instanceof GenericFixed f) {
                unscaled = f.bytes();
            } else {
                throw new IllegalArgumentException("unexpected decimal value of " + value.getClass().getName());
            }
            return new BigDecimal(new BigInteger(unscaled), type.getScale());
        }

        @Override
        Literal min() {
            return min == null ? null : Literal.ofDecimal(min, type.getPrecision(), type.getScale());
        }

        @Override
        Literal max() {
            return max == null ? null : Literal.ofDecimal(max, type.getPrecision(), type.getScale());
        }
    }

}
