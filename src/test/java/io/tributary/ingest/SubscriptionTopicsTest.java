package io.tributary.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class SubscriptionTopicsTest {

    private static final Set<String> CLUSTER = Set.of("orders-eu", "orders-us", "orders", "payments");

    @Test
    void namedTopicsAreTheSubscriptionsOwnWithoutAskingTheCluster() {
        assertThat(SubscriptionTopics.topics(new Subscription.Topics(List.of("b", "a")), () -> {
            throw new AssertionError("the cluster was asked");
        })).containsExactly("a", "b");
        assertThat(SubscriptionTopics.topics(new Subscription.Assign(Map.of("x", List.of(0))), Set::of))
                .containsExactly("x");
    }

    @Test
    void aPatternMatchesWholeNames() {
        assertThat(SubscriptionTopics.topics(new Subscription.Pattern("orders-.*"), () -> CLUSTER))
                .containsExactly("orders-eu", "orders-us");
        assertThat(SubscriptionTopics.matching(CLUSTER, new Subscription.Pattern("order"))).isEmpty();
        assertThat(SubscriptionTopics.namesTopics(new Subscription.Pattern("x"))).isFalse();
        assertThat(SubscriptionTopics.namesTopics(new Subscription.Topics(List.of("x")))).isTrue();
    }

    @Test
    void partitionsAreThoseThatExistAndForAssignOnlyTheAssignedOnes() {
        Map<String, Integer> counts = Map.of("a", 2, "b", 3);
        assertThat(SubscriptionTopics.partitions(new Subscription.Topics(List.of("a", "missing")),
                List.of("a", "missing"), counts)).containsExactly(new TopicPartition("a", 0), new TopicPartition("a", 1));
        Subscription.Assign assign = new Subscription.Assign(Map.of("b", List.of(2, 7, 2)));
        assertThat(SubscriptionTopics.partitions(assign, List.of("b"), counts))
                .as("partition 7 does not exist (yet); 2 once").containsExactly(new TopicPartition("b", 2));
    }
}
