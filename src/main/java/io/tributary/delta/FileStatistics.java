package io.tributary.delta;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.statistics.DataFileStatistics;
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
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.util.Utf8;

/**
 * Delta per-file statistics (numRecords, minValues, maxValues, nullCount) gathered row by row while the file is
 * written, so the file is never read back. Min/max cover the leaf columns of nested structs, as Delta's own writers
 * do; arrays and maps only get a null count. Strings keep a 32-character prefix with Delta's rules for a max that
 * still bounds every value. The JSON is rendered by Kernel so its formats (e.g. timestamps) match what Delta readers
 * parse.
 */
final class FileStatistics {
    static final int STRING_PREFIX = 32;

    private final StructType schema;
    private final Node[] top;
    private long numRecords;

    FileStatistics(Schema rowSchema, StructType schema) {
        this.schema = schema;
        this.top = children(rowSchema, schema, new Column(new String[0]));
    }

    void add(IndexedRecord row) {
        numRecords++;
        for (int i = 0; i < top.length; i++) {
            top[i].add(row.get(i));
        }
    }

    DataFileStatistics result() {
        Map<Column, Literal> min = new HashMap<>();
        Map<Column, Literal> max = new HashMap<>();
        Map<Column, Long> nulls = new HashMap<>();
        for (Node n : top) {
            n.collect(min, max, nulls);
        }
        return new DataFileStatistics(numRecords, min, max, nulls, Optional.empty());
    }

    String json() {
        return result().serializeAsJson(schema);
    }

    private static Node[] children(Schema record, StructType struct, Column parent) {
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
            return new StringNode(col);
        }
        return new Node(col); // boolean, binary, array, map: Delta keeps only their null counts
    }

    private static class Node {
        final Column column;
        long nulls;

        Node(Column column) {
            this.column = column;
        }

        void add(Object value) {
            if (value == null) {
                nulls++;
            }
        }

        /** The parent struct was null, so this leaf is null in the row. */
        void addNull() {
            nulls++;
        }

        void collect(Map<Column, Literal> min, Map<Column, Literal> max, Map<Column, Long> nullCounts) {
            nullCounts.put(column, nulls);
        }
    }

    private static final class StructNode extends Node {
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
    private static final class LongNode extends Node {
        private final DataType type;
        private long min = Long.MAX_VALUE;
        private long max = Long.MIN_VALUE;
        private boolean any;

        LongNode(Column column, DataType type) {
            super(column);
            this.type = type;
        }

        @Override
        void add(Object value) {
            if (value == null) {
                nulls++;
                return;
            }
            long v = toLong(value);
            any = true;
            if (v < min) {
                min = v;
            }
            if (v > max) {
                max = v;
            }
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
        void collect(Map<Column, Literal> minValues, Map<Column, Literal> maxValues, Map<Column, Long> nullCounts) {
            super.collect(minValues, maxValues, nullCounts);
            if (any) {
                minValues.put(column, literal(min));
                maxValues.put(column, literal(max));
            }
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

    private static final class DoubleNode extends Node {
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
        void add(Object value) {
            if (value == null) {
                nulls++;
                return;
            }
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
        void collect(Map<Column, Literal> minValues, Map<Column, Literal> maxValues, Map<Column, Long> nullCounts) {
            super.collect(minValues, maxValues, nullCounts);
            if (any && !nan) {
                minValues.put(column, type instanceof FloatType ? Literal.ofFloat((float) min) : Literal.ofDouble(min));
                maxValues.put(column, type instanceof FloatType ? Literal.ofFloat((float) max) : Literal.ofDouble(max));
            }
        }
    }

    private static final class DecimalNode extends Node {
        private final DecimalType type;
        private BigDecimal min;
        private BigDecimal max;

        DecimalNode(Column column, DecimalType type) {
            super(column);
            this.type = type;
        }

        @Override
        void add(Object value) {
            if (value == null) {
                nulls++;
                return;
            }
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
        void collect(Map<Column, Literal> minValues, Map<Column, Literal> maxValues, Map<Column, Long> nullCounts) {
            super.collect(minValues, maxValues, nullCounts);
            if (min != null) {
                minValues.put(column, Literal.ofDecimal(min, type.getPrecision(), type.getScale()));
                maxValues.put(column, Literal.ofDecimal(max, type.getPrecision(), type.getScale()));
            }
        }
    }

    /** Compares UTF-8 bytes, which is code point order, the order Delta readers use for string bounds. */
    private static final class StringNode extends Node {
        private byte[] min;
        private byte[] max;

        StringNode(Column column) {
            super(column);
        }

        @Override
        void add(Object value) {
            if (value == null) {
                nulls++;
                return;
            }
            byte[] bytes;
            int len;
            if (value instanceof Utf8 u) {
                bytes = u.getBytes();
                len = u.getByteLength();
            } else {
                bytes = value.toString().getBytes(StandardCharsets.UTF_8);
                len = bytes.length;
            }
            if (min == null || Arrays.compareUnsigned(bytes, 0, len, min, 0, min.length) < 0) {
                min = Arrays.copyOf(bytes, len);
            }
            if (max == null || Arrays.compareUnsigned(bytes, 0, len, max, 0, max.length) > 0) {
                max = Arrays.copyOf(bytes, len);
            }
        }

        @Override
        void collect(Map<Column, Literal> minValues, Map<Column, Literal> maxValues, Map<Column, Long> nullCounts) {
            super.collect(minValues, maxValues, nullCounts);
            if (min != null) {
                minValues.put(column, Literal.ofString(truncateMin(new String(min, StandardCharsets.UTF_8))));
                String m = truncateMax(new String(max, StandardCharsets.UTF_8));
                if (m != null) {
                    maxValues.put(column, Literal.ofString(m));
                }
            }
        }
    }

    private static final String UTF8_MAX = "\uDBFF\uDFFF";
    private static final char ASCII_MAX = '\u007F';

    /** Delta's prefix rule: never split a surrogate pair. */
    static String truncateMin(String s) {
        if (s.length() <= STRING_PREFIX) {
            return s;
        }
        if (Character.isHighSurrogate(s.charAt(STRING_PREFIX - 1)) && Character.isLowSurrogate(s.charAt(STRING_PREFIX))) {
            return s.substring(0, STRING_PREFIX + 1);
        }
        return s.substring(0, STRING_PREFIX);
    }

    /**
     * Delta's rule (StatisticsCollection.truncateMaxStringAgg): the prefix plus a tie-breaker that sorts after the
     * cut character in UTF-8 order, extending the prefix past U+10FFFF characters; null (no max) when that would need
     * more than twice the prefix length.
     */
    static String truncateMax(String s) {
        if (s.length() <= STRING_PREFIX) {
            return s;
        }
        int limit = 2 * STRING_PREFIX;
        int len = truncateMin(s).length();
        while (len <= limit) {
            if (len >= s.length()) {
                return s;
            } else if (len + 1 < s.length() && s.startsWith(UTF8_MAX, len)) {
                len += 2;
            } else if (s.charAt(len) < ASCII_MAX) {
                return s.substring(0, len) + ASCII_MAX;
            } else {
                return s.substring(0, len) + UTF8_MAX;
            }
        }
        return null;
    }
}
