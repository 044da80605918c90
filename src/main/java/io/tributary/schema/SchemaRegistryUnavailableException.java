package io.tributary.schema;

/**
 * A decoder could not reach the schema registry to fetch the writer schema a message names. Unlike a
 * {@link DecodeException} this says nothing about the message itself, so ingestion should retry the batch later rather
 * than write NULL. The message never contains a secret.
 */
public final class SchemaRegistryUnavailableException extends RuntimeException {
    public SchemaRegistryUnavailableException(String message) {
        super(message);
    }
}
