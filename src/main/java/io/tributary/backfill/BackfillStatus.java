package io.tributary.backfill;

import java.time.Instant;

/**
 * SPEC 2.3 {@code backfill_status}. Timestamps are null until known; {@code message} says why a backfill FAILED or
 * what it waits for, and names the fix where there is one.
 */
public record BackfillStatus(BackfillState state, Instant backfillMaxTimestamp, Instant ingestionMinTimestamp,
        boolean forced, long rowsMerged, Instant completedAt, String message) {

    public static BackfillStatus notConfigured() {
        return new BackfillStatus(BackfillState.NOT_CONFIGURED, null, null, false, 0, null, null);
    }

    static BackfillStatus failed(String message) {
        return new BackfillStatus(BackfillState.FAILED, null, null, false, 0, null, message);
    }

    BackfillStatus withFailure(String why) {
        return new BackfillStatus(BackfillState.FAILED, backfillMaxTimestamp, ingestionMinTimestamp, forced, 0, null, why);
    }
}
