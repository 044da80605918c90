package io.tributary.schema;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Issue 12 item 7: the column limit in every compiler, and no library class name in a schema error. */
class ColumnLimitTest {

    private static String jsonSchema(int properties) {
        StringBuilder sb = new StringBuilder("{\"type\":\"object\",\"properties\":{");
        for (int i = 0; i < properties; i++) {
            sb.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":{\"type\":\"string\"}");
        }
        return sb.append("}}").toString();
    }

    @Test
    void everyCompilerStopsAtTheLimitNamingTheField() {
        int over = ColumnLimit.max() + 1;
        assertThat(TestSchemas.json(jsonSchema(ColumnLimit.max())).columnSchema()).isNotNull();
        assertThat(TestSchemas.rejected(new SchemaSource.JsonSchema(jsonSchema(over))).field())
                .isEqualTo(TestSchemas.SIDE + ".json_schema");
        StringBuilder avro = new StringBuilder("{\"type\":\"record\",\"name\":\"R\",\"fields\":[");
        StringBuilder proto = new StringBuilder("syntax = \"proto3\"; package p; message M {");
        for (int i = 0; i < over; i++) {
            avro.append(i == 0 ? "" : ",").append("{\"name\":\"f").append(i).append("\",\"type\":\"int\"}");
            proto.append(" int32 f").append(i).append(" = ").append(i + 1).append(';');
        }
        InvalidSchemaException a = TestSchemas.rejected(new SchemaSource.Avro(avro.append("]}").toString()));
        assertThat(a.field()).isEqualTo(TestSchemas.SIDE + ".avro_schema");
        assertThat(a.getMessage()).contains("more than " + ColumnLimit.max() + " columns", "TRIBUTARY_MAX_COLUMNS");
        assertThat(TestSchemas.rejected(new SchemaSource.Protobuf(proto.append(" }").toString(), "p.M")).getMessage())
                .contains("more than " + ColumnLimit.max() + " columns");
    }

    @Test
    void expansionsCountToo() {
        // 20 definitions of 10 properties, each pointing at the next: 10^20 columns once expanded.
        StringBuilder defs = new StringBuilder("{\"$ref\":\"#/$defs/d0\",\"$defs\":{");
        for (int d = 0; d < 20; d++) {
            defs.append(d == 0 ? "" : ",").append("\"d").append(d).append("\":{\"type\":\"object\",\"properties\":{");
            for (int p = 0; p < 10; p++) {
                defs.append(p == 0 ? "" : ",").append("\"p").append(p).append("\":")
                        .append(d == 19 ? "{\"type\":\"string\"}" : "{\"$ref\":\"#/$defs/d" + (d + 1) + "\"}");
            }
            defs.append("}}");
        }
        assertThat(TestSchemas.rejected(new SchemaSource.JsonSchema(defs.append("}}").toString())).getMessage())
                .contains("columns");
        // Avro named types reused: each record holds the previous one twice (2^30 leaves).
        String avro = "{\"type\":\"record\",\"name\":\"r0\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}";
        for (int i = 1; i < 30; i++) {
            avro = "{\"type\":\"record\",\"name\":\"r" + i + "\",\"fields\":[{\"name\":\"a\",\"type\":" + avro
                    + "},{\"name\":\"b\",\"type\":\"r" + (i - 1) + "\"}]}";
        }
        assertThat(TestSchemas.rejected(new SchemaSource.Avro(avro)).getMessage()).contains("columns");
    }

    @Test
    void parserErrorsNameNoLibraryClass() {
        for (String text : new String[] {"{\"type\": \"record\", ", "[".repeat(5_000), "{\"type\": nope}"}) {
            InvalidSchemaException e = TestSchemas.rejected(new SchemaSource.Avro(text));
            assertThat(e.getMessage()).doesNotContain("com.fasterxml").doesNotContain("jackson")
                    .doesNotContain("Exception").contains("JSON");
        }
        InvalidSchemaException deep = TestSchemas.rejected(new SchemaSource.JsonSchema("[".repeat(5_000)));
        assertThat(deep.getMessage()).doesNotContain("StreamReadConstraints").doesNotContain("tools.jackson");
        assertThat(LibraryMessages.clean("com.fasterxml.jackson.core.JsonParseException: Unexpected character "
                + "('x' (code 120))\n at [Source: (String)\"{x secret\"; line: 1, column: 2]"))
                .isEqualTo("Unexpected character ('x' (code 120))");
        assertThat(LibraryMessages.clean("depth (1001) exceeds the maximum allowed (1000, from "
                + "`StreamReadConstraints.getMaxNestingDepth()`)")).isEqualTo("depth (1001) exceeds the maximum allowed"
                + " (1000)");
    }
}
