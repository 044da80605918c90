package io.tributary.schema;

/**
 * A call to a Confluent-compatible schema registry that failed; the message names the registry (without credentials)
 * and never a secret. Not an API answer: the schema compilers turn it into an invalid schema naming the field, the
 * decoders into a decode failure.
 */
final class SchemaRegistryException extends Exception {
    enum Kind { NOT_FOUND, UNAUTHORIZED, UNAVAILABLE, BAD_RESPONSE }

    private final Kind kind;

    SchemaRegistryException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    Kind kind() {
        return kind;
    }
}
