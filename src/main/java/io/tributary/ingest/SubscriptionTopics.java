package io.tributary.ingest;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;

/**
 * Which topics and partitions a subscription reads, given what the cluster has: the one rule behind the start
 * positions, the server's idle watch and assigned consumers, and the Lambda event source mappings. Pure: the callers
 * ask Kafka (each in its own way: an admin client, a consumer, a cached round) and pass the answers in.
 */
public final class SubscriptionTopics {
    private SubscriptionTopics() {}

    /**
     * The topics the subscription reads: the named ones for {@code subscribe} and {@code assign} (whether they exist
     * or not), the cluster's topics the pattern matches for {@code subscribe_pattern}.
     *
     * @param topicNames the cluster's topic names (internal ones left out); asked only for a pattern
     */
    public static SortedSet<String> topics(Subscription subscription, Supplier<? extends Collection<String>> topicNames) {
        if (subscription instanceof Subscription.Topics t) {
            return new TreeSet<>(t.topics());
        }
        if (subscription instanceof Subscription.Assign a) {
            return new TreeSet<>(a.partitions().keySet());
        }
        if (subscription instanceof Subscription.Direct) {
            return new TreeSet<>();
        }
        return matching(topicNames.get(), (Subscription.Pattern) subscription);
    }

    /** Whether the subscription names its topics (so a missing one is expected to appear) rather than matching them. */
    public static boolean namesTopics(Subscription subscription) {
        return !(subscription instanceof Subscription.Pattern);
    }

    /** The names a pattern subscription matches: the whole name, as Kafka's consumer matches a subscribed pattern. */
    public static SortedSet<String> matching(Collection<String> topicNames, Subscription.Pattern pattern) {
        Pattern regex = Pattern.compile(pattern.regex());
        SortedSet<String> matched = new TreeSet<>();
        for (String name : topicNames) {
            if (regex.matcher(name).matches()) {
                matched.add(name);
            }
        }
        return matched;
    }

    /**
     * The partitions the subscription reads of the given topics, from their partition counts (a topic's partitions
     * are 0 to count - 1; a topic missing from {@code partitionCounts} does not exist and has none): every partition,
     * or for {@code assign} the assigned ones that exist.
     */
    public static List<TopicPartition> partitions(Subscription subscription, Collection<String> topics,
            Map<String, Integer> partitionCounts) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : topics) {
            int count = partitionCounts.getOrDefault(topic, 0);
            if (subscription instanceof Subscription.Assign assign) {
                assign.partitions().getOrDefault(topic, List.of()).stream().filter(p -> p >= 0 && p < count).distinct()
                        .forEach(p -> partitions.add(new TopicPartition(topic, p)));
            } else {
                for (int p = 0; p < count; p++) {
                    partitions.add(new TopicPartition(topic, p));
                }
            }
        }
        return List.copyOf(partitions);
    }
}
