package io.tributary.delta;

import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * The way back from a Delta schema and rows read by {@link TableReader} to Avro, so rows read from a table can be
 * written again with the same Parquet writer (compaction). Only the types {@link SchemaMapping} produces.
 */
final class AvroRows {
    private AvroRows() {}

    static Schema schema(StructType struct) {
        return record(struct, "row");
    }

    private static Schema record(StructType struct, String name) {
        SchemaBuilder.FieldAssembler<Schema> fields = SchemaBuilder.record(name).namespace("io.tributary.compaction").fields();
        for (StructField f : struct.fields()) {
            Schema t = type(f.getDataType(), name + "_" + f.getName());
            fields = fields.name(f.getName()).type(f.isNullable() ? nullable(t) : t).noDefault();
        }
        return fields.endRecord();
    }

    private static Schema nullable(Schema s) {
        return Schema.createUnion(Schema.create(Schema.Type.NULL), s);
    }

    private static Schema type(DataType t, String name) {
        if (t instanceof BooleanType) {
            return Schema.create(Schema.Type.BOOLEAN);
        } else if (t instanceof IntegerType) {
            return Schema.create(Schema.Type.INT);
        } else if (t instanceof LongType) {
            return Schema.create(Schema.Type.LONG);
        } else if (t instanceof FloatType) {
            return Schema.create(Schema.Type.FLOAT);
        } else if (t instanceof DoubleType) {
            return Schema.create(Schema.Type.DOUBLE);
        } else if (t instanceof StringType) {
            return Schema.create(Schema.Type.STRING);
        } else if (t instanceof BinaryType) {
            return Schema.create(Schema.Type.BYTES);
        } else if (t instanceof DateType) {
            return LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
        } else if (t instanceof TimestampType) {
            return LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
        } else if (t instanceof TimestampNTZType) {
            return LogicalTypes.localTimestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
        } else if (t instanceof DecimalType d) {
            return LogicalTypes.decimal(d.getPrecision(), d.getScale()).addToSchema(Schema.create(Schema.Type.BYTES));
        } else if (t instanceof StructType s) {
            return record(s, name);
        } else if (t instanceof ArrayType a) {
            Schema e = type(a.getElementType(), name + "_element");
            return Schema.createArray(a.containsNull() ? nullable(e) : e);
        } else if (t instanceof MapType m && m.getKeyType() instanceof StringType) {
            Schema v = type(m.getValueType(), name + "_value");
            return Schema.createMap(m.isValueContainsNull() ? nullable(v) : v);
        }
        throw new IllegalArgumentException("column " + name + ": type " + t + " cannot be rewritten");
    }

    @SuppressWarnings("unchecked")
    static GenericRecord record(Map<String, Object> row, Schema schema) {
        GenericRecord r = new GenericData.Record(schema);
        for (Schema.Field f : schema.getFields()) {
            r.put(f.pos(), value(row.get(f.name()), SchemaMapping.nonNull(f.schema(), f.name())));
        }
        return r;
    }

    @SuppressWarnings("unchecked")
    private static Object value(Object v, Schema s) {
        if (v == null) {
            return null;
        }
        switch (s.getType()) {
            case RECORD:
                return record((Map<String, Object>) v, s);
            case ARRAY: {
                Schema element = SchemaMapping.nonNull(s.getElementType(), "element");
                List<Object> out = new ArrayList<>();
                for (Object e : (List<Object>) v) {
                    out.add(value(e, element));
                }
                return out;
            }
            case MAP: {
                Schema valueType = SchemaMapping.nonNull(s.getValueType(), "value");
                Map<String, Object> out = new LinkedHashMap<>();
                ((Map<Object, Object>) v).forEach((k, e) -> out.put(k.toString(), value(e, valueType)));
                return out;
            }
            case BYTES:
                return v instanceof BigDecimal ? v : ByteBuffer.wrap((byte[]) v);
            case INT:
                return v instanceof LocalDate d ? (int) d.toEpochDay() : v;
            case LONG:
                if (v instanceof Instant i) {
                    return ChronoUnit.MICROS.between(Instant.EPOCH, i);
                }
                if (v instanceof LocalDateTime t) {
                    return ChronoUnit.MICROS.between(Instant.EPOCH, t.toInstant(ZoneOffset.UTC));
                }
                return v;
            default:
                return v;
        }
    }
}
