package io.tributary.schema;

/** A key or value that does not decode under its schema; ingestion writes NULL and counts it. */
public final class DecodeException extends Exception {
    public DecodeException(String message) {
        super(message, null, false, false);
    }
}
