package io.tributary.delta;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;

/** Row schemas and rows for the tests, and the normal form both written records and read rows are compared in. */
final class TestRows {
    private TestRows() {}

    static final Schema SIMPLE = rowSchema("{\"type\":\"string\"}", "{\"type\":\"string\"}");

    /** A value record with every type the schema side can produce. */
    static final String RICH_VALUE = """
            {"type":"record","name":"Payment","namespace":"t","fields":[
              {"name":"id","type":"long"},
              {"name":"name","type":["null","string"]},
              {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":20,"scale":2}},
              {"name":"big","type":["null",{"type":"fixed","name":"U64","size":9,"logicalType":"decimal","precision":20,"scale":0}]},
              {"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}},
              {"name":"local_at","type":["null",{"type":"long","logicalType":"local-timestamp-micros"}]},
              {"name":"day","type":{"type":"int","logicalType":"date"}},
              {"name":"ok","type":"boolean"},
              {"name":"ratio","type":"double"},
              {"name":"score","type":"float"},
              {"name":"small","type":"int"},
              {"name":"raw","type":["null","bytes"]},
              {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["CARD","WIRE"]}},
              {"name":"tags","type":{"type":"array","items":"string"}},
              {"name":"attrs","type":{"type":"map","values":["null","long"]}},
              {"name":"address","type":["null",{"type":"record","name":"Address","fields":[
                 {"name":"city","type":"string"},{"name":"zip","type":["null","int"]},
                 {"name":"geo","type":{"type":"record","name":"Geo","fields":[{"name":"lat","type":"double"}]}}]}]},
              {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
                 {"name":"sku","type":"string"},{"name":"qty","type":"int"}]}}}
            ]}""";

    static final Schema RICH = rowSchema("{\"type\":\"string\"}", RICH_VALUE);

    static Schema rowSchema(String keySchema, String valueSchema) {
        String json = """
                {"type":"record","name":"Row","namespace":"io.tributary.row","fields":[
                  {"name":"key","type":["null",%s]},
                  {"name":"value","type":["null",%s]},
                  {"name":"stream_record_timestamp","type":{"type":"long","logicalType":"timestamp-micros"}},
                  {"name":"record_source","type":"string"},
                  {"name":"kafka_topic","type":["null","string"]},
                  {"name":"kafka_partition","type":["null","int"]},
                  {"name":"kafka_offset","type":["null","long"]}
                ]}""".formatted(keySchema, valueSchema);
        return new Schema.Parser().parse(json);
    }

    static long micros(Instant i) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, i);
    }

    /** Rows of {@link #SIMPLE} for offsets [from, to) of one partition. */
    static List<GenericRecord> simple(String topic, int partition, long from, long to) {
        List<GenericRecord> rows = new ArrayList<>();
        for (long o = from; o < to; o++) {
            GenericRecord r = new GenericData.Record(SIMPLE);
            r.put("key", "k" + o);
            r.put("value", "value-" + topic + "-" + partition + "-" + o);
            r.put("stream_record_timestamp", micros(Instant.parse("2026-01-01T00:00:00Z")) + o * 1_000_123L);
            r.put("record_source", "stream");
            r.put("kafka_topic", topic);
            r.put("kafka_partition", partition);
            r.put("kafka_offset", o);
            rows.add(r);
        }
        return rows;
    }

    static List<GenericRecord> rich(int n) {
        Schema value = SchemaMapping.nonNull(RICH.getField("value").schema(), "value");
        Schema address = SchemaMapping.nonNull(value.getField("address").schema(), "address");
        Schema geo = address.getField("geo").schema();
        Schema line = value.getField("lines").schema().getElementType();
        Schema u64 = SchemaMapping.nonNull(value.getField("big").schema(), "big");
        List<GenericRecord> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            GenericRecord v = new GenericData.Record(value);
            v.put("id", (long) i * 7919 - 1000);
            v.put("name", i % 5 == 0 ? null : (i % 3 == 0 ? "ünïcødé ✓ 𝄞 " : "name-") + "x".repeat(30 + i % 10) + i);
            v.put("amount", ByteBuffer.wrap(BigInteger.valueOf(i * 12345L - 99).toByteArray()));
            v.put("big", i % 4 == 0 ? null : new GenericData.Fixed(u64, fixed(new BigInteger("18446744073709551615").subtract(BigInteger.valueOf(i)), 9)));
            v.put("at", micros(Instant.parse("2025-06-30T23:59:59.999999Z")) + i * 1_000_001L);
            v.put("local_at", i % 2 == 0 ? null : micros(Instant.parse("2025-01-01T08:00:00Z")) + i);
            v.put("day", (int) LocalDate.of(2024, 2, 29).toEpochDay() + i);
            v.put("ok", i % 2 == 0);
            v.put("ratio", i / 3.0);
            v.put("score", (float) (i * 1.5));
            v.put("small", i - 50);
            v.put("raw", i % 3 == 0 ? null : ByteBuffer.wrap(new byte[] {(byte) i, 0, (byte) 0xff}));
            v.put("kind", new GenericData.EnumSymbol(value.getField("kind").schema(), i % 2 == 0 ? "CARD" : "WIRE"));
            v.put("tags", List.of("t" + i, "all"));
            Map<String, Long> attrs = new LinkedHashMap<>();
            attrs.put("a", (long) i);
            attrs.put("n", null);
            v.put("attrs", attrs);
            if (i % 6 != 1) {
                GenericRecord a = new GenericData.Record(address);
                a.put("city", "city-" + (i % 10));
                a.put("zip", i % 7 == 0 ? null : 10000 + i);
                GenericRecord g = new GenericData.Record(geo);
                g.put("lat", 45.0 + i / 100.0);
                a.put("geo", g);
                v.put("address", a);
            }
            List<GenericRecord> lines = new ArrayList<>();
            for (int l = 0; l < i % 3; l++) {
                GenericRecord lr = new GenericData.Record(line);
                lr.put("sku", "sku-" + l);
                lr.put("qty", l + i);
                lines.add(lr);
            }
            v.put("lines", lines);
            GenericRecord r = new GenericData.Record(RICH);
            r.put("key", i % 10 == 9 ? null : "key-" + i);
            r.put("value", i == 3 ? null : v);
            r.put("stream_record_timestamp", micros(Instant.parse("2026-03-01T12:00:00Z")) + i);
            r.put("record_source", "stream");
            r.put("kafka_topic", "payments");
            r.put("kafka_partition", i % 3);
            r.put("kafka_offset", (long) i);
            rows.add(r);
        }
        return rows;
    }

    private static byte[] fixed(BigInteger unscaled, int size) {
        byte[] raw = unscaled.toByteArray();
        byte[] out = new byte[size];
        byte pad = (byte) (unscaled.signum() < 0 ? 0xff : 0);
        int offset = size - raw.length;
        for (int i = 0; i < size; i++) {
            out[i] = i < offset ? pad : raw[i - offset];
        }
        return out;
    }

    /** A written record in the form {@link TableRows} returns, with bytes as hex so maps compare by value. */
    static Map<String, Object> normal(IndexedRecord r) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Schema.Field f : r.getSchema().getFields()) {
            out.put(f.name(), normal(r.get(f.pos()), f.schema()));
        }
        return out;
    }

    private static Object normal(Object v, Schema declared) {
        if (v == null) {
            return null;
        }
        Schema s = SchemaMapping.nonNull(declared, "");
        LogicalType lt = s.getLogicalType();
        switch (s.getType()) {
            case RECORD:
                return normal((IndexedRecord) v);
            case ARRAY: {
                List<Object> out = new ArrayList<>();
                for (Object e : (List<?>) v) {
                    out.add(normal(e, s.getElementType()));
                }
                return out;
            }
            case MAP: {
                Map<Object, Object> out = new LinkedHashMap<>();
                ((Map<?, ?>) v).forEach((k, e) -> out.put(k.toString(), normal(e, s.getValueType())));
                return out;
            }
            case STRING:
            case ENUM:
                return v.toString();
            case INT:
                return lt instanceof LogicalTypes.Date ? LocalDate.ofEpochDay((Integer) v) : v;
            case LONG:
                if (lt instanceof LogicalTypes.TimestampMicros) {
                    return ChronoUnit.MICROS.addTo(Instant.EPOCH, (Long) v);
                }
                if (lt instanceof LogicalTypes.LocalTimestampMicros) {
                    return LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC).plus((Long) v, ChronoUnit.MICROS);
                }
                return v;
            case BYTES:
            case FIXED: {
                byte[] bytes;
                if (v instanceof ByteBuffer b) {
                    bytes = new byte[b.remaining()];
                    b.duplicate().get(bytes);
                } else {
                    bytes = ((GenericFixed) v).bytes();
                }
                if (lt instanceof LogicalTypes.Decimal d) {
                    return new BigDecimal(new BigInteger(bytes), d.getScale());
                }
                return HexFormat.of().formatHex(bytes);
            }
            default:
                return v;
        }
    }

    /** A read row with byte arrays as hex. */
    static Map<String, Object> normalRead(Map<String, Object> row) {
        @SuppressWarnings("unchecked")
        Map<String, Object> out = (Map<String, Object>) normalReadValue(row);
        return out;
    }

    private static Object normalReadValue(Object v) {
        if (v instanceof byte[] b) {
            return HexFormat.of().formatHex(b);
        }
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, e) -> out.put(k, normalReadValue(e)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(e -> out.add(normalReadValue(e)));
            return out;
        }
        return v;
    }

    /** Every row of the table, via Kernel's scan, in normal form. */
    static List<Map<String, Object>> readAll(Tables tables, String location) {
        List<Map<String, Object>> out = new ArrayList<>();
        try (TableRows rows = tables.read(location)) {
            rows.forEachRemaining(r -> out.add(normalRead(r)));
        }
        return out;
    }
}
