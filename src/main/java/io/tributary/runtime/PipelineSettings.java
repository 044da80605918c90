package io.tributary.runtime;

import java.time.Duration;

/**
 * The batching, discovery and idling settings one pipeline runs with (from {@link IngestConfig}).
 * {@code idleTimeout}: how long a pipeline reads nothing before it closes its consumer and leaves the stream to
 * {@link IdleWatch}.
 */
record PipelineSettings(Duration triggerInterval, int maxBatchRecords, long maxBatchBytes, Duration topicRefresh,
        Duration idleTimeout) {

    /** A pipeline that never idles: it keeps its consumer for as long as it runs. */
    static final Duration NEVER = Duration.ofDays(365 * 100);

    PipelineSettings {
        require(!triggerInterval.isNegative() && !triggerInterval.isZero(), "trigger-interval", triggerInterval);
        require(maxBatchRecords > 0, "max-batch-records", maxBatchRecords);
        require(maxBatchBytes > 0, "max-batch-bytes", maxBatchBytes);
        require(topicRefresh.toMillis() > 0, "topic-refresh", topicRefresh);
        require(idleTimeout.toMillis() > 0, "idle-timeout", idleTimeout);
    }

    PipelineSettings(Duration triggerInterval, int maxBatchRecords, long maxBatchBytes, Duration topicRefresh) {
        this(triggerInterval, maxBatchRecords, maxBatchBytes, topicRefresh, NEVER);
    }

    private static void require(boolean ok, String key, Object value) {
        if (!ok) {
            throw new IllegalArgumentException("tributary.ingest." + key + " must be positive, not " + value);
        }
    }

    static PipelineSettings of(IngestConfig config) {
        return new PipelineSettings(config.triggerInterval(), config.maxBatchRecords(), config.maxBatchBytes(),
                config.topicRefresh(), config.idleTimeout());
    }

    /** How often idle streams' end offsets are checked: no slower than the trigger, so freshness barely suffers. */
    Duration idleCheckInterval() {
        return triggerInterval.compareTo(Duration.ofSeconds(1)) < 0 ? triggerInterval : Duration.ofSeconds(1);
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
