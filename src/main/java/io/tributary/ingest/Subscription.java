package io.tributary.ingest;

import java.util.List;
import java.util.Map;

/** Which topic-partitions a stream reads (SPEC 2.3 {@code subscription_mode}). */
public sealed interface Subscription {

    record Topics(List<String> topics) implements Subscription {}

    record Pattern(String regex) implements Subscription {}

    record Assign(Map<String, List<Integer>> partitions) implements Subscription {}

    /**
     * No Kafka at all ({@code direct_source_config}): producers push records over the API, each producer's sequence
     * being its position (see {@code ingest.direct.GroupCommit}). No consumer, mapping or start position exists.
     */
    record Direct() implements Subscription {}
}
