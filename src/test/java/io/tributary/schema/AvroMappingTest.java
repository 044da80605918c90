package io.tributary.schema;

import static io.tributary.schema.TestSchemas.avro;
import static io.tributary.schema.TestSchemas.avroSide;
import static io.tributary.schema.TestSchemas.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AvroMappingTest {

    @Test
    void mapsEveryAvroTypeToItsColumnType() {
        SideSchema side = avroSide("""
            {"type": "record", "name": "Tx", "namespace": "com.example", "fields": [
              {"name": "i", "type": "int"},
              {"name": "l", "type": "long"},
              {"name": "f", "type": "float"},
              {"name": "d", "type": "double"},
              {"name": "b", "type": "boolean"},
              {"name": "s", "type": "string"},
              {"name": "raw", "type": "bytes"},
              {"name": "fx", "type": {"type": "fixed", "name": "Hash", "size": 4}},
              {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}},
              {"name": "opt", "type": ["null", "string"], "default": null},
              {"name": "optLast", "type": ["long", "null"]},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "tsMillis", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "tsMicros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "tsNanos", "type": {"type": "long", "logicalType": "timestamp-nanos"}},
              {"name": "localMillis", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
              {"name": "localMicros", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
              {"name": "timeMillis", "type": {"type": "int", "logicalType": "time-millis"}},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
              {"name": "fixedAmount", "type": {"type": "fixed", "name": "Dec", "size": 8, "logicalType": "decimal",
                  "precision": 18, "scale": 4}},
              {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "attrs", "type": {"type": "map", "values": ["null", "int"]}},
              {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
                  {"name": "name", "type": "string"}]}},
              {"name": "other", "type": "Customer"}
            ]}""");

        assertThat(side.columnSchema()).isEqualTo(avro("""
            ["null", {"type": "record", "name": "payload_schema", "fields": [
              {"name": "i", "type": "int"},
              {"name": "l", "type": "long"},
              {"name": "f", "type": "float"},
              {"name": "d", "type": "double"},
              {"name": "b", "type": "boolean"},
              {"name": "s", "type": "string"},
              {"name": "raw", "type": "bytes"},
              {"name": "fx", "type": "bytes"},
              {"name": "color", "type": "string"},
              {"name": "opt", "type": ["null", "string"], "default": null},
              {"name": "optLast", "type": ["null", "long"], "default": null},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "tsMillis", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "tsMicros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "tsNanos", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "localMillis", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
              {"name": "localMicros", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
              {"name": "timeMillis", "type": "int"},
              {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
              {"name": "fixedAmount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 18, "scale": 4}},
              {"name": "id", "type": "string"},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "attrs", "type": {"type": "map", "values": ["null", "int"]}},
              {"name": "customer", "type": {"type": "record", "name": "payload_schema_customer", "fields": [
                  {"name": "name", "type": "string"}]}},
              {"name": "other", "type": {"type": "record", "name": "payload_schema_other", "fields": [
                  {"name": "name", "type": "string"}]}}
            ]}]"""));
    }

    @Test
    void unionOfSeveralRecordsIsAStructWithOneNullableFieldPerMember() {
        SideSchema side = avroSide("""
            [{"type": "record", "name": "Created", "namespace": "a", "fields": [{"name": "id", "type": "string"}]},
             {"type": "record", "name": "Deleted", "namespace": "b", "fields": [{"name": "id", "type": "string"},
                 {"name": "why", "type": "string"}]}]""");
        assertThat(side.columnSchema()).isEqualTo(avro("""
            ["null", {"type": "record", "name": "payload_schema", "fields": [
              {"name": "Created", "type": ["null", {"type": "record", "name": "payload_schema_Created", "fields": [
                  {"name": "id", "type": "string"}]}], "default": null},
              {"name": "Deleted", "type": ["null", {"type": "record", "name": "payload_schema_Deleted", "fields": [
                  {"name": "id", "type": "string"}, {"name": "why", "type": "string"}]}], "default": null}
            ]}]"""));
    }

    @Test
    void nullableUnionOfRecordsAndPrimitivesInsideARecord() {
        SideSchema side = avroSide("""
            {"type": "record", "name": "E", "fields": [{"name": "payload", "type": ["null", "string", "long",
              {"type": "record", "name": "Card", "fields": [{"name": "pan", "type": "string"}]}]}]}""");
        assertThat(side.columnSchema()).isEqualTo(avro("""
            ["null", {"type": "record", "name": "payload_schema", "fields": [
              {"name": "payload", "type": ["null", {"type": "record", "name": "payload_schema_payload", "fields": [
                {"name": "string", "type": ["null", "string"], "default": null},
                {"name": "long", "type": ["null", "long"], "default": null},
                {"name": "Card", "type": ["null", {"type": "record", "name": "payload_schema_payload_Card",
                    "fields": [{"name": "pan", "type": "string"}]}], "default": null}
              ]}], "default": null}
            ]}]"""));
    }

    @Test
    void primitiveTopLevelSchemas() {
        assertThat(avroSide("\"string\"").columnSchema()).isEqualTo(avro("[\"null\", \"string\"]"));
        assertThat(avroSide("[\"null\", \"long\"]").columnSchema()).isEqualTo(avro("[\"null\", \"long\"]"));
        assertThat(avroSide("{\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"A\"]}").columnSchema())
                .isEqualTo(avro("[\"null\", \"string\"]"));
    }

    @Test
    void rejectsTextThatDoesNotParse() {
        InvalidSchemaException e = rejected(new SchemaSource.Avro("{\"type\": \"record\", \"name\": \"A\"}"));
        assertThat(e.field()).isEqualTo(TestSchemas.SIDE + ".avro_schema");
        assertThat(e.getMessage()).contains("not a valid Avro schema", "fields");
        assertThat(rejected(new SchemaSource.Avro("{\"type\": \"recrd\"}")).getMessage())
                .contains("not a valid Avro schema");
        assertThat(rejected(new SchemaSource.Avro("not json")).getMessage()).contains("not a valid Avro schema");
        assertThat(rejected(new SchemaSource.Avro("")).getMessage()).contains("empty");
        assertThat(rejected(new SchemaSource.Avro(
                "{\"type\": \"record\", \"name\": \"A\", \"fields\": [{\"name\": \"bad-name\", \"type\": \"int\"}]}"))
                .getMessage()).contains("bad-name");
    }

    @Test
    void rejectsRecursiveRecords() {
        InvalidSchemaException e = rejected(new SchemaSource.Avro("""
            {"type": "record", "name": "Node", "fields": [{"name": "v", "type": "int"},
              {"name": "children", "type": {"type": "array", "items": "Node"}}]}"""));
        assertThat(e.field()).isEqualTo(TestSchemas.SIDE + ".avro_schema");
        assertThat(e.getMessage()).contains("Node", "recursive", "children");
    }

    @Test
    void rejectsDecimalsWiderThanDelta() {
        InvalidSchemaException e = rejected(new SchemaSource.Avro(
                "{\"type\": \"bytes\", \"logicalType\": \"decimal\", \"precision\": 39, \"scale\": 2}"));
        assertThat(e.getMessage()).contains("decimal(39,2)", "38");
    }

    @Test
    void rejectsEmptyRecords() {
        assertThat(rejected(new SchemaSource.Avro("{\"type\": \"record\", \"name\": \"A\", \"fields\": []}"))
                .getMessage()).contains("no fields");
    }

    @Test
    void rejectsFieldsThatDifferOnlyInCase() {
        assertThat(rejected(new SchemaSource.Avro("""
            {"type": "record", "name": "A", "fields": [{"name": "id", "type": "int"}, {"name": "ID", "type": "int"}]}"""))
                .getMessage()).contains("`id`", "`ID`");
    }
}
