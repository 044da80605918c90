package io.tributary.features;

/**
 * Another round of the view (in this process or another) or the maintenance of its offline table holds the view's
 * state row longer than a round waits: this round is skipped, not failed; the one running or the next takes the
 * commits.
 */
public final class FeatureViewBusyException extends RuntimeException {
    public FeatureViewBusyException(String message) {
        super(message);
    }
}
