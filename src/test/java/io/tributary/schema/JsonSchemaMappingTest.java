package io.tributary.schema;

import static io.tributary.schema.TestSchemas.avro;
import static io.tributary.schema.TestSchemas.json;
import static io.tributary.schema.TestSchemas.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonSchemaMappingTest {

    @Test
    void mapsEveryJsonSchemaTypeToItsColumnType() {
        SideSchema side = json("""
            {"type": "object", "properties": {
              "s": {"type": "string"},
              "ts": {"type": "string", "format": "date-time"},
              "d": {"type": "string", "format": "date"},
              "email": {"type": "string", "format": "email"},
              "num": {"type": "number"},
              "i": {"type": "integer"},
              "b": {"type": "boolean"},
              "obj": {"type": "object", "properties": {"x": {"type": "string"}}},
              "arr": {"type": "array", "items": {"type": "integer"}},
              "narr": {"type": "array", "items": {"type": ["integer", "null"]}},
              "anyarr": {"type": "array"},
              "ns": {"type": ["string", "null"]},
              "any": {},
              "multi": {"type": ["string", "integer"]},
              "free": {"type": "object"},
              "onlynull": {"type": "null"},
              "ref": {"$ref": "#/$defs/addr"}
            },
            "$defs": {"addr": {"type": "object", "properties": {"city": {"type": "string"}}}}}""");

        assertThat(side.columnSchema()).isEqualTo(avro("""
            ["null", {"type": "record", "name": "payload_schema", "fields": [
              {"name": "s", "type": ["null", "string"], "default": null},
              {"name": "ts", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}], "default": null},
              {"name": "d", "type": ["null", {"type": "int", "logicalType": "date"}], "default": null},
              {"name": "email", "type": ["null", "string"], "default": null},
              {"name": "num", "type": ["null", "double"], "default": null},
              {"name": "i", "type": ["null", "long"], "default": null},
              {"name": "b", "type": ["null", "boolean"], "default": null},
              {"name": "obj", "type": ["null", {"type": "record", "name": "payload_schema_obj", "fields": [
                  {"name": "x", "type": ["null", "string"], "default": null}]}], "default": null},
              {"name": "arr", "type": ["null", {"type": "array", "items": "long"}], "default": null},
              {"name": "narr", "type": ["null", {"type": "array", "items": ["null", "long"]}], "default": null},
              {"name": "anyarr", "type": ["null", {"type": "array", "items": ["null", "string"]}], "default": null},
              {"name": "ns", "type": ["null", "string"], "default": null},
              {"name": "any", "type": ["null", "string"], "default": null},
              {"name": "multi", "type": ["null", "string"], "default": null},
              {"name": "free", "type": ["null", "string"], "default": null},
              {"name": "onlynull", "type": ["null", "string"], "default": null},
              {"name": "ref", "type": ["null", {"type": "record", "name": "payload_schema_ref", "fields": [
                  {"name": "city", "type": ["null", "string"], "default": null}]}], "default": null}
            ]}]"""));
    }

    @Test
    void scalarTopLevelSchemas() {
        assertThat(json("{\"type\": \"string\"}").columnSchema()).isEqualTo(avro("[\"null\", \"string\"]"));
        assertThat(json("{\"type\": \"integer\"}").columnSchema()).isEqualTo(avro("[\"null\", \"long\"]"));
        assertThat(json("{\"type\": [\"number\", \"null\"]}").columnSchema()).isEqualTo(avro("[\"null\", \"double\"]"));
        assertThat(json("true").columnSchema()).isEqualTo(avro("[\"null\", \"string\"]"));
        assertThat(json("{\"type\": \"array\", \"items\": {\"type\": \"boolean\"}}").columnSchema())
                .isEqualTo(avro("[\"null\", {\"type\": \"array\", \"items\": \"boolean\"}]"));
    }

    @Test
    void propertyNamesThatAreNotColumnNamesAreMappedAndStillDecode() throws Exception {
        SideSchema side = json("""
            {"type": "object", "properties": {"user-id": {"type": "string"}, "1st": {"type": "integer"},
             "naïve": {"type": "boolean"}}}""");
        assertThat(side.columnSchema()).isEqualTo(avro("""
            ["null", {"type": "record", "name": "payload_schema", "fields": [
              {"name": "user_id", "type": ["null", "string"], "default": null},
              {"name": "_1st", "type": ["null", "long"], "default": null},
              {"name": "na_ve", "type": ["null", "boolean"], "default": null}]}]"""));
        Object value = side.newDecoder().decode(TestSchemas.utf8("{\"user-id\": \"u1\", \"1st\": 7, \"naïve\": true}"));
        assertThat(value.toString()).isEqualTo("{\"user_id\": \"u1\", \"_1st\": 7, \"na_ve\": true}");
    }

    @Test
    void rejectsPropertiesThatCollideAsColumns() {
        InvalidSchemaException e = rejected(new SchemaSource.JsonSchema("""
            {"type": "object", "properties": {"a-b": {"type": "string"}, "a_b": {"type": "string"}}}"""));
        assertThat(e.field()).isEqualTo(TestSchemas.SIDE + ".json_schema");
        assertThat(e.getMessage()).contains("`a-b`", "`a_b`", "rename");

        InvalidSchemaException nested = rejected(new SchemaSource.JsonSchema("""
            {"type": "object", "properties": {"o": {"type": "object", "properties": {
                "Id": {"type": "string"}, "id": {"type": "string"}}}}}"""));
        assertThat(nested.getMessage()).contains("`Id`", "`id`", "`o`", "case-insensitive");
    }

    @Test
    void recursiveReferenceEndsInRawJsonText() {
        SideSchema side = json("""
            {"$ref": "#/$defs/node", "$defs": {"node": {"type": "object", "properties": {
              "v": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}}}}}""");
        assertThat(side.columnSchema()).isEqualTo(avro("""
            ["null", {"type": "record", "name": "payload_schema", "fields": [
              {"name": "v", "type": ["null", "long"], "default": null},
              {"name": "next", "type": ["null", "string"], "default": null}]}]"""));
    }

    @Test
    void nestedRecordNamesAreUniqueWithinTheColumn() {
        SideSchema side = json("""
            {"type": "object", "properties": {
              "a_b": {"type": "object", "properties": {"x": {"type": "string"}}},
              "a": {"type": "object", "properties": {"b": {"type": "object", "properties": {"y": {"type": "string"}}}}}
            }}""");
        org.apache.avro.Schema record = side.columnSchema().getTypes().get(1);
        String first = record.getField("a_b").schema().getTypes().get(1).getName();
        String second = record.getField("a").schema().getTypes().get(1).getField("b").schema().getTypes().get(1)
                .getName();
        assertThat(first).isEqualTo("payload_schema_a_b");
        assertThat(second).isNotEqualTo(first).startsWith("payload_schema_a_b");
    }

    @Test
    void rejectsTextThatIsNotJson() {
        InvalidSchemaException e = rejected(new SchemaSource.JsonSchema("{\"type\": "));
        assertThat(e.field()).isEqualTo(TestSchemas.SIDE + ".json_schema");
        assertThat(e.getMessage()).contains("not valid JSON", "line 1");
    }

    @Test
    void rejectsEmptyText() {
        assertThat(rejected(new SchemaSource.JsonSchema("  ")).getMessage()).contains("empty");
    }

    @Test
    void rejectsContentAfterTheSchema() {
        // Jackson 3 refused it by default; the Jackson 2 reader (json-schema-validator 1.5's) must be told to.
        assertThat(rejected(new SchemaSource.JsonSchema("{\"type\": \"string\"} {\"type\": \"integer\"}"))
                .getMessage()).contains("is not valid JSON");
    }

    @Test
    void rejectsJsonThatIsNotASchema() {
        assertThat(rejected(new SchemaSource.JsonSchema("[1, 2]")).getMessage()).contains("not a JSON Schema");
        assertThat(rejected(new SchemaSource.JsonSchema("\"string\"")).getMessage()).contains("not a JSON Schema");
        InvalidSchemaException e = rejected(new SchemaSource.JsonSchema(
                "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"strin\"}}}"));
        assertThat(e.field()).isEqualTo(TestSchemas.SIDE + ".json_schema");
        assertThat(e.getMessage()).contains("not a valid JSON Schema", "/properties/a/type");
        assertThat(rejected(new SchemaSource.JsonSchema("{\"properties\": 5}")).getMessage())
                .contains("not a valid JSON Schema", "/properties");
        assertThat(rejected(new SchemaSource.JsonSchema("{\"type\": \"string\", \"minLength\": -1}")).getMessage())
                .contains("/minLength");
    }

    @Test
    void followsTheDeclaredDialect() {
        // draft-04 wants exclusiveMinimum to be a boolean, 2020-12 a number.
        String draft4 = "{\"$schema\": \"http://json-schema.org/draft-04/schema#\", \"type\": \"number\","
                + " \"minimum\": 1, \"exclusiveMinimum\": true}";
        assertThat(json(draft4).columnSchema()).isEqualTo(avro("[\"null\", \"double\"]"));
        rejected(new SchemaSource.JsonSchema("{\"type\": \"number\", \"minimum\": 1, \"exclusiveMinimum\": true}"));
    }

    @Test
    void rejectsAnUnknownDialect() {
        InvalidSchemaException e = rejected(new SchemaSource.JsonSchema(
                "{\"$schema\": \"https://example.com/my-schema\", \"type\": \"string\"}"));
        assertThat(e.getMessage()).contains("unsupported $schema", "draft/2020-12");
    }

    @Test
    void rejectsReferencesOutsideTheSchemaAndDanglingOnes() {
        InvalidSchemaException remote = rejected(new SchemaSource.JsonSchema(
                "{\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": \"https://example.com/a.json\"}}}"));
        assertThat(remote.getMessage()).contains("outside this schema", "inline");
        InvalidSchemaException dangling = rejected(new SchemaSource.JsonSchema(
                "{\"type\": \"object\", \"properties\": {\"a\": {\"$ref\": \"#/$defs/missing\"}}}"));
        assertThat(dangling.getMessage()).contains("#/$defs/missing", "does not resolve");
    }

    @Test
    void anyOfOneSchemaAndNullIsNullable() throws Exception {
        SideSchema side = json("""
            {"type": "object", "properties": {
              "name": {"anyOf": [{"type": "string"}, {"type": "null"}]},
              "n": {"oneOf": [{"type": "null"}, {"type": "integer"}]},
              "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]}
            }}""");
        assertThat(side.columnSchema()).isEqualTo(avro("""
            ["null", {"type": "record", "name": "payload_schema", "fields": [
              {"name": "name", "type": ["null", "string"], "default": null},
              {"name": "n", "type": ["null", "long"], "default": null},
              {"name": "either", "type": ["null", "string"], "default": null}]}]"""));
        Object v = side.newDecoder().decode(TestSchemas.utf8("{\"name\": null, \"n\": 3, \"either\": 4}"));
        assertThat(v.toString()).isEqualTo("{\"name\": null, \"n\": 3, \"either\": \"4\"}");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> side.newDecoder().decode(
                TestSchemas.utf8("{\"name\": 5}"))).isInstanceOf(DecodeException.class);
    }
}
