package io.tributary.server;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import io.tributary.config.ByteSizeConverter;
import io.tributary.config.DurationConverter;
import java.time.Duration;

/** SPEC 6: {@code TRIBUTARY_INGEST_*}. */
@ConfigMapping(prefix = "tributary.ingest")
public interface IngestConfig {

    /**
     * A micro-batch closes this long after its first record arrived, or (read to the end of its partitions) this
     * long after the previous batch closed: at most one commit per interval while records flow (SPEC 4).
     */
    @WithDefault("1s")
    @WithConverter(DurationConverter.class)
    Duration triggerInterval();

    @WithDefault("100000")
    int maxBatchRecords();

    @WithDefault("64MB")
    @WithConverter(ByteSizeConverter.class)
    Long maxBatchBytes();

    /**
     * The bytes of Kafka records all streams' pipelines of this server may hold at once ({@link
     * io.tributary.ingest.BatchMemory}); unset: a tenth of the maximum heap. Batches close early when it is reached.
     */
    @WithConverter(ByteSizeConverter.class)
    java.util.Optional<Long> maxMemory();

    /** How soon new topics matching a pattern, and partitions added later, are picked up. */
    @WithDefault("30s")
    @WithConverter(DurationConverter.class)
    Duration topicRefresh();

    /**
     * A stream that has read nothing for this long closes its Kafka consumer; the server then watches its partitions'
     * end offsets (one request per connection for all idle streams) and reopens it when records arrive. This is what
     * lets one server hold thousands of mostly quiet streams.
     */
    @WithDefault("60s")
    @WithConverter(DurationConverter.class)
    Duration idleTimeout();

    /**
     * Several servers share a stream through its consumer group; this is how long the group waits for a server that
     * stopped heartbeating (killed, cut off) before its partitions go to the others. Kafka's own default, 45 s, would
     * leave them unread that long. The broker accepts 6 s to 30 min unless configured otherwise.
     */
    @WithDefault("10s")
    @WithConverter(DurationConverter.class)
    Duration sessionTimeout();

    /**
     * A stream whose oldest record not in the table has waited longer than this is {@code STALLED} even while it
     * commits: it falls behind its topic (SPEC 2.3). Streams with nothing committed for 10 trigger intervals while
     * records wait are flagged whatever this is.
     */
    @WithDefault("15m")
    @WithConverter(DurationConverter.class)
    Duration maxStaleness();
}
