package io.tributary.delta;

import io.tributary.schema.AvroNullables;
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
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.util.Utf8;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * The plan that writes one value of the Avro data model (what {@code schema.Decoder}s return) into parquet-column's
 * {@link RecordConsumer}, compiled once per row schema: the type dispatch, union and logical-type lookups that
 * parquet-avro's write support repeats for every value are done here once. It writes exactly what parquet-avro writes
 * for {@link ParquetDataFiles#fileSchema} with the three-level list structure ({@code DirectParquetFilesTest} compares
 * the two), so files and footers are the same for readers.
 */
abstract class ValueWriters {
    /** Writes a value that is not null. */
    abstract void write(RecordConsumer out, Object value);

    /**
     * Counted where a value of this node is absent (null itself, or below a null struct): the null counts Delta keeps
     * for arrays and maps, which Parquet's leaf statistics cannot give (an empty list and a null one look alike there).
     * Null for other nodes.
     */
    long[] nullCounter() {
        return null;
    }

    static ValueWriters of(Schema schema, String path) {
        Schema s = AvroNullables.nonNull(schema);
        LogicalType logical = s.getLogicalType();
        switch (s.getType()) {
            case BOOLEAN:
                return new ValueWriters() {
                    @Override
                    void write(RecordConsumer out, Object value) {
                        out.addBoolean((Boolean) value);
                    }
                };
            case INT:
                if (logical instanceof LogicalTypes.Date) {
                    return new ValueWriters() {
                        @Override
                        void write(RecordConsumer out, Object value) {
                            out.addInteger(value instanceof LocalDate d ? Math.toIntExact(d.toEpochDay())
                                    : ((Number) value).intValue());
                        }
                    };
                }
                return new ValueWriters() {
                    @Override
                    void write(RecordConsumer out, Object value) {
                        out.addInteger(((Number) value).intValue());
                    }
                };
            case LONG:
                if (logical instanceof LogicalTypes.TimestampMicros
                        || logical instanceof LogicalTypes.LocalTimestampMicros) {
                    return new ValueWriters() {
                        @Override
                        void write(RecordConsumer out, Object value) {
                            out.addLong(micros(value));
                        }
                    };
                }
                return new ValueWriters() {
                    @Override
                    void write(RecordConsumer out, Object value) {
                        out.addLong(((Number) value).longValue());
                    }
                };
            case FLOAT:
                return new ValueWriters() {
                    @Override
                    void write(RecordConsumer out, Object value) {
                        out.addFloat(((Number) value).floatValue());
                    }
                };
            case DOUBLE:
                return new ValueWriters() {
                    @Override
                    void write(RecordConsumer out, Object value) {
                        out.addDouble(((Number) value).doubleValue());
                    }
                };
            case STRING:
            case ENUM:
                return new ValueWriters() {
                    @Override
                    void write(RecordConsumer out, Object value) {
                        out.addBinary(string(value));
                    }
                };
            case BYTES:
                if (logical instanceof LogicalTypes.Decimal d) {
                    return decimal(d, ParquetDataFiles.fixedBytes(d.getPrecision()), path);
                }
                return new ValueWriters() {
                    @Override
                    void write(RecordConsumer out, Object value) {
                        out.addBinary(bytes(value));
                    }
                };
            case FIXED:
                if (logical instanceof LogicalTypes.Decimal d) {
                    return decimal(d, s.getFixedSize(), path);
                }
                return new ValueWriters() {
                    @Override
                    void write(RecordConsumer out, Object value) {
                        out.addBinary(bytes(value));
                    }
                };
            case RECORD:
                return new Struct(s, path);
            case ARRAY:
                return new Array(s, path);
            case MAP:
                return new MapWriter(s, path);
            default:
                throw new IllegalArgumentException("column " + path + " of Avro type " + s.getType()
                        + " has no direct Parquet writer");
        }
    }

    /** The fields of a record, by position; each field is written unless its value is null. */
    static final class Struct extends ValueWriters {
        final String[] names;
        final boolean[] nullable;
        final ValueWriters[] fields;
        final String path;
        /** The null counters of arrays and maps below this struct (not below their elements), for a null struct. */
        final long[][] counters;

        Struct(Schema record, String path) {
            List<Schema.Field> fs = record.getFields();
            this.path = path;
            names = new String[fs.size()];
            nullable = new boolean[fs.size()];
            fields = new ValueWriters[fs.size()];
            java.util.List<long[]> below = new java.util.ArrayList<>();
            for (int i = 0; i < fs.size(); i++) {
                Schema.Field f = fs.get(i);
                names[i] = f.name();
                nullable[i] = AvroNullables.acceptsNull(f.schema());
                fields[i] = of(f.schema(), path.isEmpty() ? f.name() : path + "." + f.name());
                if (fields[i].nullCounter() != null) {
                    below.add(fields[i].nullCounter());
                }
                if (fields[i] instanceof Struct st) {
                    below.addAll(Arrays.asList(st.counters));
                }
            }
            counters = below.toArray(long[][]::new);
        }

        @Override
        void write(RecordConsumer out, Object value) {
            IndexedRecord r = (IndexedRecord) value;
            out.startGroup();
            for (int i = 0; i < fields.length; i++) {
                field(out, i, r.get(i));
            }
            out.endGroup();
        }

        /** Writes field {@code i} of a row or struct, or leaves it out when null. */
        void field(RecordConsumer out, int i, Object value) {
            if (value == null) {
                absent(i);
                return;
            }
            out.startField(names[i], i);
            fields[i].write(out, value);
            out.endField(names[i], i);
        }

        void absent(int i) {
            if (!nullable[i]) {
                String p = path.isEmpty() ? names[i] : path + "." + names[i];
                throw new NullPointerException("null value for the non-nullable field " + p);
            }
            long[] counter = fields[i].nullCounter();
            if (counter != null) {
                counter[0]++;
            } else if (fields[i] instanceof Struct st) {
                for (long[] c : st.counters) {
                    c[0]++;
                }
            }
        }
    }

    static final class Array extends ValueWriters {
        private final ValueWriters element;
        private final boolean elementNullable;
        private final long[] nulls = new long[1];
        private final String path;

        Array(Schema array, String path) {
            this.path = path;
            element = of(array.getElementType(), path + ".element");
            elementNullable = AvroNullables.acceptsNull(array.getElementType());
        }

        @Override
        long[] nullCounter() {
            return nulls;
        }

        @Override
        void write(RecordConsumer out, Object value) {
            Collection<?> list = (Collection<?>) value;
            out.startGroup();
            if (!list.isEmpty()) {
                out.startField("list", 0);
                for (Object e : list) {
                    out.startGroup();
                    if (e != null) {
                        out.startField("element", 0);
                        element.write(out, e);
                        out.endField("element", 0);
                    } else if (!elementNullable) {
                        throw new NullPointerException("null element in the array " + path
                                + ", whose elements are not nullable");
                    }
                    out.endGroup();
                }
                out.endField("list", 0);
            }
            out.endGroup();
        }
    }

    static final class MapWriter extends ValueWriters {
        private final ValueWriters values;
        private final boolean valueNullable;
        private final long[] nulls = new long[1];
        private final String path;

        MapWriter(Schema map, String path) {
            this.path = path;
            values = of(map.getValueType(), path + ".value");
            valueNullable = AvroNullables.acceptsNull(map.getValueType());
        }

        @Override
        long[] nullCounter() {
            return nulls;
        }

        @Override
        void write(RecordConsumer out, Object value) {
            Map<?, ?> map = (Map<?, ?>) value;
            out.startGroup();
            if (!map.isEmpty()) {
                out.startField("key_value", 0);
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    out.startGroup();
                    out.startField("key", 0);
                    out.addBinary(string(e.getKey()));
                    out.endField("key", 0);
                    if (e.getValue() != null) {
                        out.startField("value", 1);
                        values.write(out, e.getValue());
                        out.endField("value", 1);
                    } else if (!valueNullable) {
                        throw new NullPointerException("null value in the map " + path
                                + ", whose values are not nullable");
                    }
                    out.endGroup();
                }
                out.endField("key_value", 0);
            }
            out.endGroup();
        }
    }

    /** Unscaled two's complement in a fixed of {@code size} bytes, sign-extended, as parquet-avro writes it. */
    private static ValueWriters decimal(LogicalTypes.Decimal type, int size, String path) {
        int scale = type.getScale();
        return new ValueWriters() {
            @Override
            void write(RecordConsumer out, Object value) {
                byte[] unscaled;
                if (value instanceof BigDecimal d) {
                    unscaled = d.setScale(scale).unscaledValue().toByteArray();
                } else if (value instanceof ByteBuffer b) {
                    unscaled = new byte[b.remaining()];
                    b.duplicate().get(unscaled);
                } else if (value instanceof GenericFixed f) {
                    unscaled = f.bytes();
                } else if (value instanceof BigInteger i) {
                    unscaled = i.toByteArray();
                } else {
                    throw new IllegalArgumentException("column " + path + ": unexpected decimal value of "
                            + value.getClass().getName());
                }
                if (unscaled.length == size) {
                    out.addBinary(Binary.fromConstantByteArray(unscaled));
                    return;
                }
                if (unscaled.length > size) {
                    throw new IllegalArgumentException("column " + path + ": a decimal of " + unscaled.length
                            + " bytes does not fit " + type.getPrecision() + " digits");
                }
                byte[] fixed = new byte[size];
                byte sign = unscaled.length > 0 && unscaled[0] < 0 ? (byte) 0xFF : 0;
                Arrays.fill(fixed, 0, size - unscaled.length, sign);
                System.arraycopy(unscaled, 0, fixed, size - unscaled.length, unscaled.length);
                out.addBinary(Binary.fromConstantByteArray(fixed));
            }
        };
    }

    static Binary string(Object value) {
        if (value instanceof Utf8 u) {
            return Binary.fromConstantByteArray(u.getBytes(), 0, u.getByteLength());
        }
        if (value instanceof String s) {
            return Binary.fromString(s);
        }
        return Binary.fromConstantByteArray(value.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static Binary bytes(Object value) {
        if (value instanceof ByteBuffer b) {
            return Binary.fromConstantByteBuffer(b.duplicate());
        }
        if (value instanceof GenericFixed f) {
            return Binary.fromConstantByteArray(f.bytes());
        }
        return Binary.fromConstantByteArray((byte[]) value);
    }

    private static long micros(Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        if (value instanceof Instant i) {
            return ChronoUnit.MICROS.between(Instant.EPOCH, i);
        }
        if (value instanceof LocalDateTime t) {
            return ChronoUnit.MICROS.between(Instant.EPOCH, t.toInstant(ZoneOffset.UTC));
        }
        throw new IllegalArgumentException("unexpected timestamp value of " + value.getClass().getName());
    }
}
