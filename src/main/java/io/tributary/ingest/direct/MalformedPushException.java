package io.tributary.ingest.direct;

/** A push whose body cannot be read as a push: nothing of it is written. {@code field} is its path in the body. */
public final class MalformedPushException extends RuntimeException {
    private final String field;

    public MalformedPushException(String field, String problem) {
        super(field + ": " + problem);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
