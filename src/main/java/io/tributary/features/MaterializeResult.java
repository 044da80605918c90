package io.tributary.features;

/**
 * One round: the source versions it went from and to, records read and dropped late, windows made final; {@code more}:
 * it was a part of a first round that has more to take (version still -1), to be run again at once.
 */
public record MaterializeResult(long fromVersion, long toVersion, long records, long lateDropped, long finalWindows,
        long watermark, boolean more) {
    private static final long BUSY = Long.MIN_VALUE;

    /** A round skipped: another held the view longer than a round waits ({@link FeatureViewBusyException}). */
    static MaterializeResult busy() {
        return new MaterializeResult(BUSY, BUSY, 0, 0, 0, Long.MIN_VALUE, false);
    }

    public boolean skippedBusy() {
        return fromVersion == BUSY;
    }
}
