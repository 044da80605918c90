package io.tributary.schema;

import static io.tributary.schema.TestSchemas.avro;
import static io.tributary.schema.TestSchemas.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

class StreamSchemaTest {
    private static final String KEY_FIELD = "schema_config.direct_schemas.key_schema";
    private static final String VALUE_FIELD = "schema_config.direct_schemas.payload_schema";
    private static final String TX = """
        {"type": "object", "properties": {"transaction_id": {"type": "string"},
          "card": {"type": "object", "properties": {"last4": {"type": "string"}}},
          "items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}}}}""";

    private final StreamSchema stream = StreamSchema.of(
            SideSchema.compile(new SchemaSource.Plain(), KEY_FIELD),
            SideSchema.compile(new SchemaSource.JsonSchema(TX), VALUE_FIELD));

    @Test
    void plainSideIsANullableString() throws Exception {
        SideSchema plain = SideSchema.compile(new SchemaSource.Plain(), KEY_FIELD);
        assertThat(plain.columnSchema()).isEqualTo(avro("[\"null\", \"string\"]"));
        assertThat(plain.newDecoder().decode(utf8("k-ü"))).isEqualTo("k-ü");
        assertThat(plain.newDecoder().decode(null)).isNull();
    }

    @Test
    void rowHasTheSpecColumnsInOrder() {
        assertThat(stream.rowSchema()).isEqualTo(avro("""
            {"type": "record", "name": "tributary_row", "fields": [
              {"name": "key", "type": ["null", "string"], "default": null},
              {"name": "value", "type": ["null", {"type": "record", "name": "payload_schema", "fields": [
                {"name": "transaction_id", "type": ["null", "string"], "default": null},
                {"name": "card", "type": ["null", {"type": "record", "name": "payload_schema_card", "fields": [
                  {"name": "last4", "type": ["null", "string"], "default": null}]}], "default": null},
                {"name": "items", "type": ["null", {"type": "array", "items": {"type": "record",
                  "name": "payload_schema_items", "fields": [
                  {"name": "sku", "type": ["null", "string"], "default": null}]}}], "default": null}]}],
                "default": null},
              {"name": "stream_record_timestamp", "type": ["null", {"type": "long",
                  "logicalType": "timestamp-micros"}], "default": null},
              {"name": "record_source", "type": ["null", "string"], "default": null},
              {"name": "kafka_topic", "type": ["null", "string"], "default": null},
              {"name": "kafka_partition", "type": ["null", "int"], "default": null},
              {"name": "kafka_offset", "type": ["null", "long"], "default": null}
            ]}"""));
    }

    @Test
    void acceptsColumnsAndNestedStructFields() {
        for (String path : new String[] {"key", "value", "value.transaction_id", "value.card", "value.card.last4",
                "kafka_partition", "kafka_offset", "kafka_topic", "stream_record_timestamp", "record_source",
                "value.items"}) {
            assertThat(stream.checkColumnPath(path)).as(path).isEmpty();
        }
    }

    @Test
    void rejectsPathsThatNameNoColumn() {
        assertThat(stream.checkColumnPath("value.nope")).get().asString()
                .contains("`value`", "no column `nope`", "transaction_id, card, items");
        assertThat(stream.checkColumnPath("partition")).get().asString().contains("kafka_partition");
        assertThat(stream.checkColumnPath("Value.transaction_id")).get().asString().contains("did you mean `value`");
        assertThat(stream.checkColumnPath("key.part")).get().asString().contains("`key` is a string column");
        assertThat(stream.checkColumnPath("value.items.sku")).get().asString().contains("an array");
        assertThat(stream.checkColumnPath("value..card")).get().asString().contains("empty part");
        assertThat(stream.checkColumnPath("value.card.last4.x")).get().asString().contains("value.card.last4");
        assertThat(stream.checkColumnPath("")).isPresent();
        assertThat(stream.checkColumnPath(null)).isPresent();
    }

    @Test
    void mapsCannotBeDescended() {
        StreamSchema s = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), KEY_FIELD),
                SideSchema.compile(new SchemaSource.Avro("{\"type\": \"record\", \"name\": \"R\", \"fields\": ["
                        + "{\"name\": \"m\", \"type\": {\"type\": \"map\", \"values\": \"string\"}}]}"), VALUE_FIELD));
        assertThat(s.checkColumnPath("value.m")).isEmpty();
        assertThat(s.checkColumnPath("value.m.k")).get().asString().contains("a map");
    }

    @Test
    void keyAndValueNeverShareRecordNames() throws Exception {
        String avroRecord = "{\"type\": \"record\", \"name\": \"Id\", \"fields\": [{\"name\": \"id\", \"type\": \"string\"}]}";
        // The same field for both sides gives the same names; the row must still have unique ones.
        StreamSchema s = StreamSchema.of(SideSchema.compile(new SchemaSource.Avro(avroRecord), "x"),
                SideSchema.compile(new SchemaSource.Avro(avroRecord), "x"));
        Set<String> names = new HashSet<>();
        collectRecordNames(s.rowSchema(), names);
        assertThat(names).containsExactlyInAnyOrder("tributary_row", "key", "value");
        // Decoders of the sides produce records of exactly the row's record schemas.
        byte[] bytes = AvroDecoderTest.encode(avro(avroRecord),
                new org.apache.avro.generic.GenericRecordBuilder(avro(avroRecord)).set("id", "1").build());
        GenericRecord key = (GenericRecord) s.keySide().newDecoder().decode(bytes);
        assertThat(key.getSchema()).isSameAs(s.keySide().columnSchema().getTypes().get(1));
        assertThat(s.rowSchema().getField("key").schema().getTypes().get(1)).isEqualTo(key.getSchema());

        StreamSchema distinct = StreamSchema.of(SideSchema.compile(new SchemaSource.Avro(avroRecord), KEY_FIELD),
                SideSchema.compile(new SchemaSource.Avro(avroRecord), VALUE_FIELD));
        names.clear();
        collectRecordNames(distinct.rowSchema(), names);
        assertThat(names).containsExactlyInAnyOrder("tributary_row", "key_schema", "payload_schema");
    }

    private static void collectRecordNames(Schema s, Set<String> into) {
        switch (s.getType()) {
            case RECORD -> {
                into.add(s.getFullName());
                s.getFields().forEach(f -> collectRecordNames(f.schema(), into));
            }
            case UNION -> s.getTypes().forEach(t -> collectRecordNames(t, into));
            case ARRAY -> collectRecordNames(s.getElementType(), into);
            case MAP -> collectRecordNames(s.getValueType(), into);
            default -> { }
        }
    }
}
