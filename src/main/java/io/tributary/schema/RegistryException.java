package io.tributary.schema;

/** A schema-registry call that failed; the message names the registry (without credentials) and never a secret. */
final class RegistryException extends Exception {
    enum Kind { NOT_FOUND, UNAUTHORIZED, UNAVAILABLE, BAD_RESPONSE }

    private final Kind kind;

    RegistryException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    Kind kind() {
        return kind;
    }
}
