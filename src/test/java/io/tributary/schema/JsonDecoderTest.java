package io.tributary.schema;

import static io.tributary.schema.TestSchemas.json;
import static io.tributary.schema.TestSchemas.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

class JsonDecoderTest {
    private static final String SCHEMA = """
        {"type": "object", "properties": {
          "id": {"type": "string"},
          "amount": {"type": "number"},
          "count": {"type": "integer"},
          "ok": {"type": "boolean"},
          "at": {"type": "string", "format": "date-time"},
          "day": {"type": "string", "format": "date"},
          "note": {"type": ["string", "null"]},
          "tags": {"type": "array", "items": {"type": "string"}},
          "customer": {"type": "object", "properties": {"name": {"type": "string"}, "vip": {"type": "boolean"}}},
          "extra": {}
        }}""";

    private final Decoder decoder = json(SCHEMA).newDecoder();

    private GenericRecord decode(String text) throws DecodeException {
        return (GenericRecord) decoder.decode(utf8(text));
    }

    @Test
    void decodesEveryTypeIntoTheColumnModel() throws Exception {
        GenericRecord r = decode("""
            {"id": "t-1", "amount": 12.5, "count": 3, "ok": true, "at": "2024-05-06T07:08:09.123456+02:00",
             "day": "2024-05-06", "note": null, "tags": ["a", "b"], "customer": {"name": "Ann", "vip": false},
             "extra": {"deep": [1, {"x": "y"}]}}""");
        assertThat(r.get("id")).isEqualTo("t-1");
        assertThat(r.get("amount")).isEqualTo(12.5d);
        assertThat(r.get("count")).isEqualTo(3L);
        assertThat(r.get("ok")).isEqualTo(true);
        Instant at = Instant.parse("2024-05-06T05:08:09.123456Z");
        assertThat(r.get("at")).isEqualTo(at.getEpochSecond() * 1_000_000L + at.getNano() / 1_000);
        assertThat(r.get("day")).isEqualTo((int) LocalDate.parse("2024-05-06").toEpochDay());
        assertThat(r.get("note")).isNull();
        assertThat(r.get("tags")).isEqualTo(List.of("a", "b"));
        GenericRecord customer = (GenericRecord) r.get("customer");
        assertThat(customer.get("name")).isEqualTo("Ann");
        assertThat(customer.get("vip")).isEqualTo(false);
        assertThat(customer.getSchema()).isSameAs(r.getSchema().getField("customer").schema().getTypes().get(1));
        assertThat(r.get("extra")).isEqualTo("{\"deep\": [1, {\"x\": \"y\"}]}");
    }

    @Test
    void rawValuesKeepTheirExactJsonText() throws Exception {
        assertThat(decode("{\"extra\": \"quoted \\\"text\\\" é\"}").get("extra")).isEqualTo("\"quoted \\\"text\\\" é\"");
        assertThat(decode("{\"extra\": -1.5e3}").get("extra")).isEqualTo("-1.5e3");
        assertThat(decode("{\"extra\": true}").get("extra")).isEqualTo("true");
        assertThat(decode("{\"extra\": [ 1 ,2 ]}").get("extra")).isEqualTo("[ 1 ,2 ]");
        assertThat(decode("{\"extra\": null}").get("extra")).isNull();
    }

    @Test
    void missingFieldsAreNullAndExtraFieldsAreIgnored() throws Exception {
        GenericRecord r = decode("{\"id\": \"x\", \"unknown\": {\"a\": [1, 2, {\"b\": null}]}, \"more\": [[]], \"z\": 1}");
        assertThat(r.get("id")).isEqualTo("x");
        assertThat(r.get("amount")).isNull();
        assertThat(r.get("customer")).isNull();
        assertThat(decode("{}").get("id")).isNull();
    }

    @Test
    void acceptsWholeNumbersWrittenAsFloatsForIntegersAndIntegersForNumbers() throws Exception {
        assertThat(decode("{\"count\": 2.0}").get("count")).isEqualTo(2L);
        assertThat(decode("{\"amount\": 2}").get("amount")).isEqualTo(2.0d);
    }

    @Test
    void dateTimeWithoutOffsetIsUtc() throws Exception {
        assertThat(decode("{\"at\": \"1970-01-01T00:00:01\"}").get("at")).isEqualTo(1_000_000L);
        assertThat(decode("{\"at\": \"1970-01-01t00:00:01z\"}").get("at")).isEqualTo(1_000_000L);
    }

    @Test
    void nullBytesAreNull() throws Exception {
        assertThat(decoder.decode(null)).isNull();
    }

    @Test
    void malformedJsonFails() {
        for (String bad : List.of("{\"id\": ", "{\"id\" \"x\"}", "not json", "", "{\"id\": \"x\"} trailing",
                "{\"id\": \"x\"} {}")) {
            assertThatThrownBy(() -> decode(bad)).as(bad).isInstanceOf(DecodeException.class);
        }
    }

    @Test
    void anyTypeMismatchFailsTheWholeValue() {
        for (String bad : List.of(
                "{\"id\": 5}", "{\"amount\": \"12\"}", "{\"count\": 1.5}", "{\"count\": \"3\"}",
                "{\"count\": 99999999999999999999}", "{\"ok\": \"true\"}", "{\"ok\": 1}",
                "{\"at\": \"yesterday\"}", "{\"at\": 1700000000}", "{\"day\": \"2024-13-01\"}",
                "{\"id\": null}", "{\"tags\": \"a\"}", "{\"tags\": [1]}", "{\"tags\": [null]}",
                "{\"customer\": [\"Ann\"]}", "{\"customer\": {\"vip\": \"no\"}}", "[]", "\"text\"", "null")) {
            assertThatThrownBy(() -> decode(bad)).as(bad).isInstanceOf(DecodeException.class);
        }
    }

    @Test
    void failureMessagesNameThePathButNotTheValue() {
        assertThatThrownBy(() -> decode("{\"customer\": {\"vip\": \"secret-ish\"}}"))
                .hasMessageContaining("customer.vip")
                .hasMessageNotContaining("secret-ish");
        assertThatThrownBy(() -> decode("{\"id\": \"x\", \"bad\": secret}"))
                .hasMessageNotContaining("secret");
    }

    @Test
    void nullableTopLevelAcceptsNull() throws Exception {
        assertThat(json("{\"type\": [\"object\", \"null\"], \"properties\": {\"a\": {\"type\": \"string\"}}}")
                .newDecoder().decode(utf8("null"))).isNull();
        assertThat(json("{\"type\": \"string\"}").newDecoder().decode(utf8("\"plain\""))).isEqualTo("plain");
    }

    @Test
    void nullableArrayItemsAcceptNull() throws Exception {
        Object v = json("{\"type\": \"array\", \"items\": {\"type\": [\"integer\", \"null\"]}}")
                .newDecoder().decode(utf8("[1, null, 3]"));
        assertThat(v).isEqualTo(java.util.Arrays.asList(1L, null, 3L));
    }
}
