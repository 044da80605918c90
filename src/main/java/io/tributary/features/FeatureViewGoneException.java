package io.tributary.features;

/** The view was deleted while a round ran: nothing was written. */
public final class FeatureViewGoneException extends RuntimeException {
    public FeatureViewGoneException(String message) {
        super(message);
    }
}
