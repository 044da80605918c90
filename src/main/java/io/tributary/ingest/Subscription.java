package io.tributary.ingest;

import java.util.List;
import java.util.Map;

/** Which topic-partitions a stream reads (SPEC 2.3 {@code subscription_mode}). */
public sealed interface Subscription {

    record Topics(List<String> topics) implements Subscription {}

    record Pattern(String regex) implements Subscription {}

    record Assign(Map<String, List<Integer>> partitions) implements Subscription {}
}
