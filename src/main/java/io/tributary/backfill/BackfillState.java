package io.tributary.backfill;

/** SPEC 2.3 {@code backfill_status.state}. */
public enum BackfillState {
    NOT_CONFIGURED,
    WAITING_FOR_OVERLAP,
    MERGING,
    COMPLETED,
    FAILED
}
