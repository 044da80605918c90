package io.tributary.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;

final class TestSchemas {
    static final String SIDE = "schema_config.direct_schemas.payload_schema";

    private TestSchemas() {}

    static Schema avro(String json) {
        return new Schema.Parser().parse(json);
    }

    static SideSchema json(String text) {
        return SideSchema.compile(new SchemaSource.JsonSchema(text), SIDE);
    }

    static SideSchema avroSide(String text) {
        return SideSchema.compile(new SchemaSource.Avro(text), SIDE);
    }

    static SideSchema proto(String text, String message) {
        return SideSchema.compile(new SchemaSource.Protobuf(text, message), SIDE);
    }

    static InvalidSchemaException rejected(SchemaSource source) {
        InvalidSchemaException e = catchThrowableOfType(InvalidSchemaException.class,
                () -> SideSchema.compile(source, SIDE));
        assertThat(e).as("expected the schema to be rejected").isNotNull();
        return e;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
