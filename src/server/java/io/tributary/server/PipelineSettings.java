package io.tributary.server;

import io.tributary.ingest.BatchMemory;
import java.time.Duration;

/**
 * The batching, discovery, idling and group settings one pipeline runs with (from {@link IngestConfig}).
 * {@code idleTimeout}: how long a pipeline reads nothing before it closes its consumer and leaves the stream to
 * {@link IdleWatch}. {@code sessionTimeout}: how long the stream's consumer group waits for a silent server before
 * the others take over its partitions. {@code maxStaleness}: how long the oldest record not in the table may wait
 * before the stream is {@code STALLED} even though it commits ({@link StallWatch}). {@code memory}: the records every
 * pipeline of the process holds, against one limit ({@link BatchMemory}); shared by all pipelines made with these
 * settings.
 */
record PipelineSettings(Duration triggerInterval, int maxBatchRecords, long maxBatchBytes, Duration topicRefresh,
        Duration idleTimeout, Duration sessionTimeout, Duration maxStaleness, BatchMemory memory) {

    /** The process's pipelines' memory at its default limit, for settings not made from the configuration. */
    private static final BatchMemory PROCESS = new BatchMemory(BatchMemory.defaultLimit());

    /** A pipeline that never idles: it keeps its consumer for as long as it runs. */
    static final Duration NEVER = Duration.ofDays(365 * 100);
    /** {@code tributary.ingest.session-timeout}'s default. */
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
    /** {@code tributary.ingest.max-staleness}'s default. */
    static final Duration MAX_STALENESS = Duration.ofMinutes(15);

    PipelineSettings {
        require(!triggerInterval.isNegative() && !triggerInterval.isZero(), "trigger-interval", triggerInterval);
        require(maxBatchRecords > 0, "max-batch-records", maxBatchRecords);
        require(maxBatchBytes > 0, "max-batch-bytes", maxBatchBytes);
        require(topicRefresh.toMillis() > 0, "topic-refresh", topicRefresh);
        require(idleTimeout.toMillis() > 0, "idle-timeout", idleTimeout);
        require(sessionTimeout.toMillis() > 0, "session-timeout", sessionTimeout);
        require(maxStaleness.toMillis() > 0, "max-staleness", maxStaleness);
    }

    PipelineSettings(Duration triggerInterval, int maxBatchRecords, long maxBatchBytes, Duration topicRefresh,
            Duration idleTimeout, Duration sessionTimeout, Duration maxStaleness) {
        this(triggerInterval, maxBatchRecords, maxBatchBytes, topicRefresh, idleTimeout, sessionTimeout, maxStaleness,
                PROCESS);
    }

    PipelineSettings(Duration triggerInterval, int maxBatchRecords, long maxBatchBytes, Duration topicRefresh,
            Duration idleTimeout, Duration sessionTimeout) {
        this(triggerInterval, maxBatchRecords, maxBatchBytes, topicRefresh, idleTimeout, sessionTimeout,
                MAX_STALENESS);
    }

    PipelineSettings(Duration triggerInterval, int maxBatchRecords, long maxBatchBytes, Duration topicRefresh,
            Duration idleTimeout) {
        this(triggerInterval, maxBatchRecords, maxBatchBytes, topicRefresh, idleTimeout, SESSION_TIMEOUT);
    }

    PipelineSettings(Duration triggerInterval, int maxBatchRecords, long maxBatchBytes, Duration topicRefresh) {
        this(triggerInterval, maxBatchRecords, maxBatchBytes, topicRefresh, NEVER);
    }

    private static void require(boolean ok, String key, Object value) {
        if (!ok) {
            throw new IllegalArgumentException("tributary.ingest." + key + " (TRIBUTARY_INGEST_"
                    + key.toUpperCase(java.util.Locale.ROOT).replace('-', '_') + ") must be positive, not " + value);
        }
    }

    static PipelineSettings of(IngestConfig config) {
        long memory = config.maxMemory().orElseGet(BatchMemory::defaultLimit);
        require(memory > 0, "max-memory", memory);
        return new PipelineSettings(config.triggerInterval(), config.maxBatchRecords(), config.maxBatchBytes(),
                config.topicRefresh(), config.idleTimeout(), config.sessionTimeout(), config.maxStaleness(),
                new BatchMemory(memory));
    }

    /**
     * How often the stream's consumer heartbeats. In Kafka's classic group protocol a member learns that a rebalance
     * started from a heartbeat's answer, so this bounds how long a joining server waits for the others to let go of
     * its partitions; a tenth of the session timeout keeps that about a second.
     */
    Duration heartbeatInterval() {
        return sessionTimeout.dividedBy(10);
    }

    /** How often idle streams' end offsets are checked: no slower than the trigger, so freshness barely suffers. */
    Duration idleCheckInterval() {
        return triggerInterval.compareTo(Duration.ofSeconds(1)) < 0 ? triggerInterval : Duration.ofSeconds(1);
    }

    /**
     * Whether a batch holding this much must close now: at either bound; once the trigger interval has passed since
     * it opened; or, when the consumer has read to the end of every partition it holds, once the interval has passed
     * since the previous batch closed (so records after a quiet spell are committed at once rather than a whole
     * interval later, while commits stay at most one per interval) or when the batch is half full (the tail of a
     * catch-up is written at once instead of waiting out the interval for records that are not there).
     */
    boolean closes(int records, long bytes, long openedNanos, long lastClosedNanos, boolean atLogEnd, long nowNanos) {
        if (records == 0) {
            return false;
        }
        if (records >= maxBatchRecords || bytes >= maxBatchBytes || nowNanos - openedNanos >= triggerInterval.toNanos()) {
            return true;
        }
        return atLogEnd && (nowNanos - lastClosedNanos >= triggerInterval.toNanos()
                || records >= maxBatchRecords / 2 || bytes >= maxBatchBytes / 2);
    }

    /**
     * How long the next poll may wait without letting an open batch overrun its close: the interval after the
     * previous batch closed (where a batch at the log end closes) or, past that, after this one opened. A poll returns
     * as soon as records arrive, so a long wait costs nothing while they flow.
     */
    Duration pollTimeout(int records, long openedNanos, long lastClosedNanos, long nowNanos) {
        if (records == 0) {
            return triggerInterval;
        }
        long interval = triggerInterval.toNanos();
        long due = nowNanos - lastClosedNanos < interval ? lastClosedNanos + interval : openedNanos + interval;
        return Duration.ofNanos(Math.max(0, due - nowNanos));
    }
}
