package io.tributary.features;

import java.time.Instant;

/**
 * Where a feature view's materialization stands, as its state row in the online database holds it: the source version
 * consumed, the greatest event time seen, the watermark, the window end through which windows were emitted, counters.
 * Times are epoch milliseconds; {@link Long#MIN_VALUE} before any record. While the first round over the source's
 * snapshot is under way (taken in parts, {@code version} still -1): the snapshot's version {@code firstVersion} and
 * how many of its data files, in the order the round takes them, {@code firstFiles} are consumed. {@code sourceTableId}:
 * the Delta table id of the source those versions are of (null before the first round, and for a state written before
 * it was kept): a source deleted and written anew at its location counts its versions from 0 again.
 */
public record FeatureState(String viewId, long version, long maxEventTime, long watermark, long finalThrough,
        long recordsRead, long lateDropped, long skipped, Instant sourceCommittedAt, Instant updatedAt, String state,
        String message, long firstVersion, int firstFiles, String sourceTableId) {
    public static final String PROVISIONING = "PROVISIONING";
    public static final String ONLINE = "ONLINE";
    public static final String FAILED = "FAILED";
    public static final String STOPPED = "STOPPED";
}
