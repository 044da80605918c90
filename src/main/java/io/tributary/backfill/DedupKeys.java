package io.tributary.backfill;

import io.tributary.schema.AvroNullables;
import io.tributary.schema.StreamSchema;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;

/**
 * The dedup key of a row: the values at the dedup column paths, converted to the ingestion table's types (so an
 * INT source value equals the LONG already ingested), encoded canonically and hashed to 128 bits. NULL has its own
 * encoding, so NULL equals NULL (SQL's null-safe {@code <=>}). Works on rows as {@code TableRows} reads them, from
 * either table.
 */
final class DedupKeys {
    static final List<String> DEFAULT = List.of(StreamSchema.KEY, StreamSchema.VALUE, StreamSchema.STREAM_RECORD_TIMESTAMP);
    private static final long SEED = 0x7472696275746172L;

    private final String[][] paths;
    private final SourceRowMapper.Converter[] converters;
    private byte[] buf = new byte[256];
    private int len;

    /** @throws IllegalArgumentException naming the path that does not resolve in the ingestion table */
    DedupKeys(Schema rowSchema, List<String> deduplicationColumns) {
        List<String> columns = deduplicationColumns.isEmpty() ? DEFAULT : deduplicationColumns;
        paths = new String[columns.size()][];
        converters = new SourceRowMapper.Converter[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            String dotted = columns.get(i);
            paths[i] = dotted.split("\\.", -1);
            converters[i] = SourceRowMapper.converter(resolve(rowSchema, dotted, paths[i]), dotted);
        }
    }

    private static Schema resolve(Schema rowSchema, String dotted, String[] parts) {
        Schema current = rowSchema;
        for (int i = 0; i < parts.length; i++) {
            Schema record = SourceRowMapper.nonNull(current);
            Schema.Field f = record.getType() == Schema.Type.RECORD ? record.getField(parts[i]) : null;
            if (f == null) {
                String where = i == 0 ? "the ingestion table" : "`" + String.join(".", Arrays.copyOf(parts, i)) + "`";
                String choices = record.getType() == Schema.Type.RECORD
                        ? "; its fields are " + record.getFields().stream().map(Schema.Field::name).collect(Collectors.joining(", "))
                        : " (not a struct)";
                throw new IllegalArgumentException("deduplication column `" + dotted + "`: " + where + " has no field `"
                        + parts[i] + "`" + choices);
            }
            current = f.schema();
        }
        // A nested field under a nullable struct is NULL whenever its parent is.
        return AvroNullables.acceptsNull(current) ? current : AvroNullables.nullable(current);
    }

    /** The top-level columns the key reads: all a row needs for {@link #hash}. */
    java.util.Set<String> columns() {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (String[] p : paths) {
            out.add(p[0]);
        }
        return out;
    }

    /** Writes the key's hash into {@code out[0..1]}. */
    void hash(Map<String, Object> row, long[] out) {
        len = 0;
        for (int i = 0; i < paths.length; i++) {
            encode(converters[i].convert(lookup(row, paths[i])));
        }
        Murmur3.hash128(buf, len, SEED, out);
    }

    private static Object lookup(Map<String, Object> row, String[] path) {
        Object current = row;
        for (String part : path) {
            if (!(current instanceof Map<?, ?> m)) {
                return null;
            }
            Object next = m.get(part);
            if (next == null && !m.containsKey(part)) {
                @SuppressWarnings("unchecked")
                Map<String, Object> fields = (Map<String, Object>) m;
                String match = SourceRowMapper.match(part, fields.keySet());
                next = match == null ? null : m.get(match);
            }
            current = next;
        }
        return current;
    }

    private void encode(Object v) {
        if (v == null) {
            put((byte) 0);
        } else if (v instanceof Boolean b) {
            put((byte) 1);
            put((byte) (b ? 1 : 0));
        } else if (v instanceof Integer n) {
            put((byte) 2);
            putLong(n);
        } else if (v instanceof Long n) {
            put((byte) 3);
            putLong(n);
        } else if (v instanceof Float f) {
            put((byte) 4);
            putLong(Double.doubleToLongBits(f == 0f ? 0d : f.doubleValue()));
        } else if (v instanceof Double d) {
            put((byte) 5);
            putLong(Double.doubleToLongBits(d == 0d ? 0d : d));
        } else if (v instanceof CharSequence s) {
            put((byte) 6);
            putBytes(s.toString().getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof ByteBuffer b) {
            put((byte) 7);
            ByteBuffer d = b.duplicate();
            byte[] bytes = new byte[d.remaining()];
            d.get(bytes);
            putBytes(bytes);
        } else if (v instanceof BigDecimal d) {
            put((byte) 8);
            putLong(d.scale());
            putBytes(d.unscaledValue().toByteArray());
        } else if (v instanceof LocalDate d) {
            put((byte) 9);
            putLong(d.toEpochDay());
        } else if (v instanceof Instant t) {
            put((byte) 10);
            putLong(ChronoUnit.MICROS.between(Instant.EPOCH, t));
        } else if (v instanceof LocalDateTime t) {
            put((byte) 11);
            putLong(ChronoUnit.MICROS.between(Instant.EPOCH, t.toInstant(ZoneOffset.UTC)));
        } else if (v instanceof IndexedRecord r) {
            int n = r.getSchema().getFields().size();
            put((byte) 12);
            putLong(n);
            for (int i = 0; i < n; i++) {
                encode(r.get(i));
            }
        } else if (v instanceof List<?> l) {
            put((byte) 13);
            putLong(l.size());
            for (Object e : l) {
                encode(e);
            }
        } else if (v instanceof Map<?, ?> m) {
            // Map entries compare as sets, so they are encoded in key order whatever order the file had.
            put((byte) 14);
            putLong(m.size());
            List<Map.Entry<?, ?>> entries = new ArrayList<>(m.entrySet());
            entries.sort((a, b) -> String.valueOf(a.getKey()).compareTo(String.valueOf(b.getKey())));
            for (Map.Entry<?, ?> e : entries) {
                encode(String.valueOf(e.getKey()));
                encode(e.getValue());
            }
        } else {
            throw new IllegalStateException("no key encoding for " + v.getClass().getName());
        }
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
        }
    }

    private void put(byte b) {
        ensure(1);
        buf[len++] = b;
    }

    private void putLong(long v) {
        ensure(8);
        for (int i = 0; i < 8; i++) {
            buf[len++] = (byte) (v >>> (8 * i));
        }
    }

    private void putBytes(byte[] b) {
        putLong(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
    }
}
