package io.tributary.backfill;

import io.tributary.schema.AvroNullables;
import io.tributary.schema.StreamSchema;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * Turns a row as {@code TableRows} reads it (any Delta table) into a row of the ingestion table: columns and struct
 * fields matched by name (exact, else ignoring case, as Spark resolves them), values widened to the ingestion
 * table's types, absent columns NULL and {@code record_source} set. Conversions are compiled once per target type
 * so the per-row work is a walk over small objects.
 */
final class SourceRowMapper {
    private final Schema rowSchema;
    private final Converter[] columns;
    private final String[] names;
    private final int recordSource;

    /**
     * @param sourceColumns the source's top-level column names
     * @param recordSource  the value for {@code record_source}, or null to take it from the row (ingestion rows)
     */
    SourceRowMapper(Schema rowSchema, List<String> sourceColumns, String recordSource) {
        this.rowSchema = rowSchema;
        List<Schema.Field> fields = rowSchema.getFields();
        this.columns = new Converter[fields.size()];
        this.names = new String[fields.size()];
        int rs = -1;
        for (Schema.Field f : fields) {
            int i = f.pos();
            if (recordSource != null && f.name().equals(StreamSchema.RECORD_SOURCE)) {
                rs = i;
                columns[i] = v -> recordSource;
                continue;
            }
            String match = match(f.name(), sourceColumns);
            names[i] = match;
            if (match == null && !nullable(f.schema())) {
                throw new IllegalArgumentException("the ingestion table's column " + f.name()
                        + " is NOT NULL but the backfill source has no column " + f.name() + "; add it to the source");
            }
            columns[i] = converter(f.schema(), f.name());
        }
        this.recordSource = rs;
    }

    Schema rowSchema() {
        return rowSchema;
    }

    GenericRecord map(Map<String, Object> row) {
        GenericData.Record out = new GenericData.Record(rowSchema);
        for (int i = 0; i < columns.length; i++) {
            Object v = i == recordSource ? null : names[i] == null ? null : row.get(names[i]);
            out.put(i, columns[i].convert(v));
        }
        return out;
    }

    static String match(String name, Iterable<String> candidates) {
        String folded = null;
        for (String c : candidates) {
            if (c.equals(name)) {
                return c;
            }
            if (folded == null && c.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                folded = c;
            }
        }
        return folded;
    }

    static boolean nullable(Schema s) {
        return AvroNullables.acceptsNull(s);
    }

    static Schema nonNull(Schema s) {
        return AvroNullables.nonNull(s);
    }

    @FunctionalInterface
    interface Converter {
        Object convert(Object value);
    }

    static Converter converter(Schema declared, String path) {
        boolean nullable = nullable(declared);
        Converter inner = nonNullConverter(nonNull(declared), path);
        return v -> {
            if (v == null) {
                if (!nullable) {
                    throw new IllegalArgumentException("backfill column " + path
                            + " is NULL in a source row but NOT NULL in the ingestion table");
                }
                return null;
            }
            return inner.convert(v);
        };
    }

    private static Converter nonNullConverter(Schema s, String path) {
        LogicalType logical = s.getLogicalType();
        switch (s.getType()) {
            case BOOLEAN:
                return v -> expect(v, Boolean.class, path, "boolean");
            case INT:
                if (logical instanceof LogicalTypes.Date) {
                    return v -> {
                        if (v instanceof LocalDate) {
                            return v;
                        }
                        throw mismatch(v, path, "date");
                    };
                }
                return v -> {
                    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
                        return ((Number) v).intValue();
                    }
                    if (v instanceof Long l && l == l.intValue()) {
                        return l.intValue();
                    }
                    throw mismatch(v, path, "int");
                };
            case LONG:
                if (logical instanceof LogicalTypes.TimestampMicros) {
                    return v -> {
                        if (v instanceof Instant) {
                            return v;
                        }
                        if (v instanceof LocalDateTime t) {
                            return t.toInstant(ZoneOffset.UTC);
                        }
                        if (v instanceof LocalDate d) {
                            return d.atStartOfDay(ZoneOffset.UTC).toInstant();
                        }
                        throw mismatch(v, path, "timestamp");
                    };
                }
                if (logical instanceof LogicalTypes.LocalTimestampMicros) {
                    return v -> {
                        if (v instanceof LocalDateTime) {
                            return v;
                        }
                        if (v instanceof Instant i) {
                            return LocalDateTime.ofInstant(i, ZoneOffset.UTC);
                        }
                        if (v instanceof LocalDate d) {
                            return d.atStartOfDay();
                        }
                        throw mismatch(v, path, "timestamp_ntz");
                    };
                }
                return v -> {
                    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
                        return ((Number) v).longValue();
                    }
                    throw mismatch(v, path, "bigint");
                };
            case FLOAT:
                return v -> {
                    if (v instanceof Float || v instanceof Integer || v instanceof Short || v instanceof Byte) {
                        return ((Number) v).floatValue();
                    }
                    throw mismatch(v, path, "float");
                };
            case DOUBLE:
                return v -> {
                    if (v instanceof Number n && !(v instanceof BigDecimal)) {
                        return n.doubleValue();
                    }
                    throw mismatch(v, path, "double");
                };
            case STRING:
            case ENUM:
                return v -> {
                    if (v instanceof CharSequence) {
                        return v.toString();
                    }
                    if (v instanceof BigDecimal d) {
                        return d.toPlainString();
                    }
                    if (v instanceof Number || v instanceof Boolean || v instanceof LocalDate) {
                        return v.toString();
                    }
                    throw mismatch(v, path, "string");
                };
            case BYTES:
            case FIXED:
                if (logical instanceof LogicalTypes.Decimal d) {
                    return v -> decimal(v, d, path);
                }
                return v -> {
                    if (v instanceof byte[] b) {
                        return ByteBuffer.wrap(b);
                    }
                    throw mismatch(v, path, "binary");
                };
            case RECORD:
                return record(s, path);
            case ARRAY: {
                Converter element = converter(s.getElementType(), path + ".element");
                return v -> {
                    if (!(v instanceof List<?> list)) {
                        throw mismatch(v, path, "array");
                    }
                    List<Object> out = new ArrayList<>(list.size());
                    for (Object e : list) {
                        out.add(element.convert(e));
                    }
                    return out;
                };
            }
            case MAP: {
                Converter value = converter(s.getValueType(), path + ".value");
                return v -> {
                    if (!(v instanceof Map<?, ?> map)) {
                        throw mismatch(v, path, "map");
                    }
                    Map<String, Object> out = new LinkedHashMap<>();
                    map.forEach((k, e) -> out.put(String.valueOf(k), value.convert(e)));
                    return out;
                };
            }
            default:
                throw new IllegalArgumentException("ingestion column " + path + " has Avro type " + s.getType()
                        + ", which a backfill cannot fill");
        }
    }

    /** A source struct arrives as a map keyed by field name; fields are matched like top-level columns. */
    private static Converter record(Schema s, String path) {
        List<Schema.Field> fields = s.getFields();
        Converter[] children = new Converter[fields.size()];
        for (Schema.Field f : fields) {
            children[f.pos()] = converter(f.schema(), path + "." + f.name());
        }
        return v -> {
            if (!(v instanceof Map<?, ?> struct)) {
                throw mismatch(v, path, "struct");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> in = (Map<String, Object>) struct;
            GenericData.Record out = new GenericData.Record(s);
            for (Schema.Field f : fields) {
                Object fv = in.get(f.name());
                if (fv == null && !in.containsKey(f.name())) {
                    String m = match(f.name(), in.keySet());
                    fv = m == null ? null : in.get(m);
                }
                out.put(f.pos(), children[f.pos()].convert(fv));
            }
            return out;
        };
    }

    private static BigDecimal decimal(Object v, LogicalTypes.Decimal d, String path) {
        BigDecimal in;
        if (v instanceof BigDecimal b) {
            in = b;
        } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            in = BigDecimal.valueOf(((Number) v).longValue());
        } else if (v instanceof BigInteger b) {
            in = new BigDecimal(b);
        } else {
            throw mismatch(v, path, "decimal(" + d.getPrecision() + "," + d.getScale() + ")");
        }
        BigDecimal out;
        try {
            out = in.setScale(d.getScale());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("backfill column " + path + ": value " + in.toPlainString()
                    + " has more decimal places than the ingestion table's decimal(" + d.getPrecision() + ","
                    + d.getScale() + ")");
        }
        if (out.precision() > d.getPrecision()) {
            throw new IllegalArgumentException("backfill column " + path + ": value " + in.toPlainString()
                    + " does not fit the ingestion table's decimal(" + d.getPrecision() + "," + d.getScale() + ")");
        }
        return out;
    }

    private static Object expect(Object v, Class<?> type, String path, String sqlType) {
        if (type.isInstance(v)) {
            return v;
        }
        throw mismatch(v, path, sqlType);
    }

    private static IllegalArgumentException mismatch(Object v, String path, String target) {
        return new IllegalArgumentException("backfill column " + path + ": a " + describe(v)
                + " value cannot be written to the ingestion table's " + target + " column; make the source column's type"
                + " match or widen to it (e.g. int to bigint)");
    }

    private static String describe(Object v) {
        if (v instanceof Map) {
            return "struct or map";
        }
        if (v instanceof List) {
            return "array";
        }
        if (v instanceof byte[]) {
            return "binary";
        }
        if (v instanceof Instant) {
            return "timestamp";
        }
        if (v instanceof LocalDateTime) {
            return "timestamp_ntz";
        }
        if (v instanceof LocalDate) {
            return "date";
        }
        return switch (v.getClass().getSimpleName()) {
            case "Integer" -> "int";
            case "Long" -> "bigint";
            case "Short" -> "smallint";
            case "Byte" -> "tinyint";
            case "BigDecimal" -> "decimal";
            default -> v.getClass().getSimpleName().toLowerCase(Locale.ROOT);
        };
    }
}
