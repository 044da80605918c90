package io.tributary.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** SPEC "Direct ingest": {@code TRIBUTARY_DIRECT_*}, the group commit of pushed records. */
@ConfigMapping(prefix = "tributary.direct")
public interface DirectIngestConfig {

    /**
     * How long a round of group commit waits, after the first push reaches an idle committer, for more pushes to join
     * it. Pushes that arrive while a commit runs join the next round anyway; this only adds to an idle stream's
     * latency, so it stays a few milliseconds.
     */
    @WithDefault("5ms")
    @WithConverter(DurationConverter.class)
    Duration groupCommitWait();

    /** Most records one group commit holds; more wait for the next round. */
    @WithDefault("200000")
    int maxGroupRecords();

    /** Most record bytes (keys and values) one group commit holds. */
    @WithDefault("64MB")
    @WithConverter(ByteSizeConverter.class)
    Long maxGroupBytes();

    /** Pushes are refused with 503 while this many record bytes already wait for one stream in this process. */
    @WithDefault("256MB")
    @WithConverter(ByteSizeConverter.class)
    Long maxQueuedBytes();

    /**
     * Flow control of a streaming push connection (the server's WebSocket): most batches sent on one connection and
     * not yet acknowledged. A batch beyond it is refused with TEMPORARILY_UNAVAILABLE (nothing written), so a producer
     * keeps at most this many in flight.
     */
    @WithDefault("64")
    int maxUnacknowledgedBatches();

    /** Most bytes of batches (as sent) on one streaming connection not yet acknowledged; beyond it, as above. */
    @WithDefault("64MB")
    @WithConverter(ByteSizeConverter.class)
    Long maxUnacknowledgedBytes();
}
