package io.tributary.schema;

/**
 * A schema that cannot back a stream. {@code field} is the full request path of the offending field: the path the
 * caller passed to {@link SideSchema#compile} followed by what is wrong below it, e.g.
 * {@code schema_config.direct_schemas.payload_schema.proto_schema.message_name}, or for a registry locator
 * {@code ...payload_schema_locator.confluent_schema.subject}, {@code ...payload_schema_locator.format} and, for
 * refused credentials, the sibling {@code ...schema_registry_config.api_secret_ref}. The message says what is wrong
 * and how to fix it without repeating the field, and never contains a secret.
 */
public final class InvalidSchemaException extends RuntimeException {
    private final String field;

    public InvalidSchemaException(String field, String message) {
        super(message);
        this.field = field;
    }

    /** {@code cause} says what a running pipeline should make of it, e.g. a {@link SchemaRegistryUnavailableException}. */
    InvalidSchemaException(String field, String message, RuntimeException cause) {
        super(message, cause);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
