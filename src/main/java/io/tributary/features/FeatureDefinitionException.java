package io.tributary.features;

/** A feature view definition that cannot work: {@code field} is the request's field (dotted), the message the fix. */
public final class FeatureDefinitionException extends RuntimeException {
    private final String field;

    public FeatureDefinitionException(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
