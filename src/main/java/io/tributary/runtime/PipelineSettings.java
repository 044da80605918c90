package io.tributary.runtime;

import java.time.Duration;

/** The batching and discovery settings one pipeline runs with (from {@link IngestConfig}). */
record PipelineSettings(Duration triggerInterval, int maxBatchRecords, long maxBatchBytes, Duration topicRefresh) {

    PipelineSettings {
        require(!triggerInterval.isNegative() && !triggerInterval.isZero(), "trigger-interval", triggerInterval);
        require(maxBatchRecords > 0, "max-batch-records", maxBatchRecords);
        require(maxBatchBytes > 0, "max-batch-bytes", maxBatchBytes);
        require(topicRefresh.toMillis() > 0, "topic-refresh", topicRefresh);
    }

    private static void require(boolean ok, String key, Object value) {
        if (!ok) {
            throw new IllegalArgumentException("tributary.ingest." + key + " must be positive, not " + value);
        }
    }

    static PipelineSettings of(IngestConfig config) {
        return new PipelineSettings(config.triggerInterval(), config.maxBatchRecords(), config.maxBatchBytes(),
                config.topicRefresh());
    }

    /** Whether a batch holding this much, open since {@code openedNanos}, must close now. */
    boolean closes(int records, long bytes, long openedNanos, long nowNanos) {
        return records > 0 && (records >= maxBatchRecords || bytes >= maxBatchBytes
                || nowNanos - openedNanos >= triggerInterval.toNanos());
    }

    /** How long the next poll may wait without letting an open batch overrun its trigger. */
    Duration pollTimeout(int records, long openedNanos, long nowNanos) {
        if (records == 0) {
            return triggerInterval;
        }
        long left = triggerInterval.toNanos() - (nowNanos - openedNanos);
        return Duration.ofNanos(Math.max(0, left));
    }
}
