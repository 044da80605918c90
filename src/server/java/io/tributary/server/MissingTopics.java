package io.tributary.server;

import io.tributary.ingest.Subscription;
import io.tributary.ingest.SubscriptionTopics;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * Topics a consumer session reads that the cluster does not have: named ones not created yet or deleted (often to be
 * created again, which SPEC 4 ingests from the beginning), and assigned ones deleted under it. The stream waits for
 * them and its status says so, where it used to fail on a Kafka it could reach ("cannot reach Kafka") every 15 s:
 * a deleted topic's partitions stay assigned until the consumer's next metadata update, and asking their end
 * offsets blocks for the whole probe timeout.
 */
final class MissingTopics {
    private final Subscription subscription;
    private final PipelineStatus status;
    /** Named topics the cluster lacked at the last look. */
    private Set<String> missing = Set.of();
    /** Assigned topics the cluster lacked at the last look: left out of the end-offset probe. */
    private final Set<String> gone = new HashSet<>();

    MissingTopics(Subscription subscription, PipelineStatus status) {
        this.subscription = subscription;
        this.status = status;
    }

    /** What the cluster has now, against the subscription and the partitions assigned. */
    void listed(Set<String> topicNames, Collection<TopicPartition> assigned) {
        Set<String> named = new TreeSet<>();
        if (SubscriptionTopics.namesTopics(subscription)) {
            for (String topic : SubscriptionTopics.topics(subscription, () -> topicNames)) {
                if (!topicNames.contains(topic)) {
                    named.add(topic);
                }
            }
        }
        missing = named;
        gone.clear();
        assigned.stream().map(TopicPartition::topic).filter(t -> !topicNames.contains(t)).forEach(gone::add);
        status.missingTopics(missing);
    }

    /** True while some topic was missing at the last look: then the next probe looks again. */
    boolean any() {
        return !missing.isEmpty() || !gone.isEmpty();
    }

    /** The assigned partitions whose topic the cluster had at the last look. */
    Set<TopicPartition> present(Collection<TopicPartition> assigned) {
        Set<TopicPartition> present = new HashSet<>();
        for (TopicPartition tp : assigned) {
            if (!gone.contains(tp.topic())) {
                present.add(tp);
            }
        }
        return present;
    }
}
