package io.tributary.ingest.direct;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.schema.SchemaSource;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/** The JSON push body read in one streaming pass: each side's bytes as the stream's decoder must see them. */
class PushBodiesTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String AVRO = """
            {"type": "record", "name": "E", "fields": [{"name": "id", "type": "string"}, {"name": "n", "type": "long"}]}""";
    /** Sides read as from Kafka (a stream keeping rescued records): the envelope alone is checked. */
    private static final PushBodies JSON_SIDES = new PushBodies(new SchemaSource.Plain(),
            new SchemaSource.JsonSchema("{\"type\": \"object\"}"), true);

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Push json(PushBodies bodies, String body) {
        return bodies.read("application/json", utf8(body), 7L);
    }

    @Test
    void aJsonSchemaValueIsPassedOnAsTheBytesItHasInTheBody() throws Exception {
        // Every kind of JSON value, at the end of a record and before another field, with and without spaces around.
        List<String> values = List.of("{\"a\": {\"b\": [1, 2.5e3, \"x\\\"y\"]}, \"c\": null}", "[]", "{}", "42", "-1.5",
                "true", "false", "\"caf\\u00e9 ☕\"", "\"\"", "[{\"k\": [[]]}]");
        for (String value : values) {
            for (String body : List.of(
                    "{\"producer_id\":\"p\",\"sequence\":1,\"records\":[{\"value\":" + value + "}]}",
                    "{\"producer_id\": \"p\", \"sequence\": 1, \"records\": [ {\"value\" :  " + value
                            + "  , \"key\": \"k\"} , {\"key\":\"k2\",\"value\":" + value + "} ] }")) {
                Push push = json(JSON_SIDES, body);
                for (Push.Record r : push.records()) {
                    String bytes = new String(r.value(), StandardCharsets.UTF_8);
                    assertEquals(MAPPER.readTree(value), MAPPER.readTree(bytes), body + " gave " + bytes);
                    assertEquals(value.trim(), bytes.trim(), "the value's bytes as they came");
                }
                assertEquals(7L, push.records().get(0).timestampMs(), "no timestamp: the time received");
            }
        }
        Push push = json(JSON_SIDES, "{\"records\":[{\"key\":\"k\",\"value\":{\"n\":1},\"timestamp\":\"2026-12-01T10:00:00Z\"},"
                + "{\"value\":null,\"timestamp\":1764583200001}],\"sequence\":9,\"producer_id\":\"p-9\"}");
        assertEquals("p-9", push.producerId());
        assertEquals(9, push.sequence());
        assertArrayEquals(utf8("k"), push.records().get(0).key());
        assertEquals(java.time.Instant.parse("2026-12-01T10:00:00Z").toEpochMilli(), push.records().get(0).timestampMs());
        assertNull(push.records().get(1).value());
        assertNull(push.records().get(1).key());
        assertEquals(1764583200001L, push.records().get(1).timestampMs());
    }

    @Test
    void anAvroSideTakesAvrosJsonEncodingAndPassesOnWhatDoesNotFit() throws Exception {
        PushBodies bodies = new PushBodies(new SchemaSource.Plain(), new SchemaSource.Avro(AVRO), true);
        Push push = json(bodies, "{\"producer_id\":\"p\",\"sequence\":0,\"records\":[{\"value\":{\"id\":\"a\",\"n\":5}},"
                + "{\"value\": {\"id\": 3}}]}");
        Schema schema = new Schema.Parser().parse(AVRO);
        GenericRecord expected = new GenericData.Record(schema);
        expected.put("id", "a");
        expected.put("n", 5L);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(expected, encoder);
        assertArrayEquals(out.toByteArray(), push.records().get(0).value());
        assertEquals("{\"id\": 3}", new String(push.records().get(1).value(), StandardCharsets.UTF_8),
                "not this schema's JSON: passed on as it came, to be NULL and counted");
    }

    @Test
    void withoutRescueASideItsSchemaCannotDecodeIsRefusedNamingTheRecord() {
        PushBodies strict = new PushBodies(new SchemaSource.Plain(), new SchemaSource.JsonSchema(
                "{\"type\": \"object\", \"properties\": {\"page\": {\"type\": \"string\"}}}"), false);
        Push fine = json(strict, "{\"producer_id\":\"p\",\"sequence\":0,\"records\":[{\"value\":{\"page\":\"/a\"}},"
                + "{\"key\":\"k\"}]}");
        assertEquals(2, fine.records().size());
        MalformedPushException e = assertThrows(MalformedPushException.class, () -> json(strict,
                "{\"producer_id\":\"p\",\"sequence\":0,\"records\":[{\"value\":{\"page\":\"/a\"}},"
                        + "{\"value\":{\"page\":5}}]}"));
        assertEquals("records[1].value", e.field());
        assertTrue(e.getMessage().contains("rescue_undecodable"), e.getMessage());
        PushBodies avro = new PushBodies(new SchemaSource.Plain(), new SchemaSource.Avro(AVRO), false);
        e = assertThrows(MalformedPushException.class, () -> json(avro,
                "{\"producer_id\":\"p\",\"sequence\":0,\"records\":[{\"value\": {\"id\": 3}}]}"));
        assertEquals("records[0].value", e.field());
    }

    @Test
    void base64SidesAndPlainSides() {
        Push push = json(JSON_SIDES, "{\"producer_id\":\"p\",\"sequence\":0,\"records\":[{\"key\":\"caf\\u00e9\","
                + "\"value_base64\":\"AAEC\"}]}");
        assertArrayEquals(utf8("café"), push.records().get(0).key());
        assertArrayEquals(new byte[] {0, 1, 2}, push.records().get(0).value());
        assertRefused("records[0].key", "string column", "{\"producer_id\":\"p\",\"sequence\":0,\"records\":[{\"key\":1}]}");
        PushBodies proto = new PushBodies(new SchemaSource.Plain(), new SchemaSource.Protobuf("syntax = \"proto3\";", "M"),
                true);
        MalformedPushException e = assertThrows(MalformedPushException.class, () -> json(proto,
                "{\"producer_id\":\"p\",\"sequence\":0,\"records\":[{\"value\":{\"a\":1}}]}"));
        assertEquals("records[0].value", e.field());
        assertTrue(e.getMessage().contains("value_base64"), e.getMessage());
    }

    @Test
    void everyRefusalNamesItsField() {
        String ok = "\"producer_id\":\"p\",\"sequence\":0";
        assertRefused("body", "not valid JSON", "{" + ok + ",\"records\":[{\"value\":{\"a\":}]}");
        assertRefused("body", "not valid JSON", "{" + ok + ",\"records\":[]} {}");
        assertRefused("body", "not valid JSON", "{" + ok + ",\"records\":[{\"value\":1}");
        assertRefused("body", "JSON object", "[]");
        assertRefused("body", "JSON object", "");
        assertRefused("producer_id", "is required", "{\"sequence\":0,\"records\":[{\"value\":1}]}");
        assertRefused("producer_id", "must be a string", "{\"producer_id\":1,\"sequence\":0,\"records\":[{}]}");
        assertRefused("producer_id", "letters", "{\"producer_id\":\"a b\",\"sequence\":0,\"records\":[{}]}");
        assertRefused("sequence", "integer", "{\"producer_id\":\"p\",\"sequence\":1.0,\"records\":[{}]}");
        assertRefused("sequence", "integer", "{\"producer_id\":\"p\",\"sequence\":99999999999999999999,\"records\":[{}]}");
        assertRefused("sequence", "integer", "{\"producer_id\":\"p\",\"records\":[{}]}");
        assertRefused("sequence", "non-negative", "{\"producer_id\":\"p\",\"sequence\":-1,\"records\":[{}]}");
        assertRefused("records", "JSON array", "{" + ok + ",\"records\":{}}");
        assertRefused("records", "JSON array", "{" + ok + "}");
        assertRefused("records", "at least one", "{" + ok + ",\"records\":[]}");
        assertRefused("records[1]", "must be an object", "{" + ok + ",\"records\":[{},3]}");
        assertRefused("records[1].valu", "not a field", "{" + ok + ",\"records\":[{},{\"valu\":3}]}");
        assertRefused("extra", "not a field", "{" + ok + ",\"extra\":{\"records\":[]},\"records\":[{}]}");
        assertRefused("records[0].key", "not both", "{" + ok + ",\"records\":[{\"key\":\"a\",\"key_base64\":\"AA==\"}]}");
        assertRefused("records[0].value_base64", "base64 string", "{" + ok + ",\"records\":[{\"value_base64\":1}]}");
        assertRefused("records[0].value_base64", "not valid base64", "{" + ok + ",\"records\":[{\"value_base64\":\"*\"}]}");
        assertRefused("records[0].timestamp", "RFC 3339", "{" + ok + ",\"records\":[{\"timestamp\":\"yesterday\"}]}");
        assertRefused("records[0].timestamp", "RFC 3339", "{" + ok + ",\"records\":[{\"timestamp\":{}}]}");
    }

    private static void assertRefused(String field, String says, String body) {
        MalformedPushException e = assertThrows(MalformedPushException.class, () -> json(JSON_SIDES, body), body);
        assertEquals(field, e.field(), e.getMessage());
        assertTrue(e.getMessage().contains(says), e.getMessage());
    }
}
