package io.tributary.delta;

import io.delta.kernel.types.StructType;
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
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * The way back from a Delta schema and rows read by {@link TableReader} to Avro, so rows read from a table can be
 * written again with the same Parquet writer (compaction). Only the types {@link SchemaMapping} produces.
 */
final class AvroRows {
    private AvroRows() {}

    /** The same mapping the backfill writes with, so a rewritten file has the columns the log declares. */
    static Schema schema(StructType struct) {
        return AvroRowSchema.of(struct);
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
