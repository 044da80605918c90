package io.tributary.schema;

/**
 * A schema that cannot back a stream. {@code field} is the path of the offending request field relative to
 * {@code schema_config} (for example {@code direct_schemas.payload_schema.avro_schema}); the message says what is
 * wrong and how to fix it, and never contains a secret.
 */
public final class InvalidSchemaException extends RuntimeException {
    private final String field;

    public InvalidSchemaException(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
