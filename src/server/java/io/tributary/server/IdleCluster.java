package io.tributary.server;

import io.tributary.delta.PartitionKey;
import io.tributary.ingest.AdminConfigs;
import io.tributary.ingest.Subscription;
import io.tributary.ingest.SubscriptionTopics;
import io.tributary.retry.Backoff;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jboss.logging.Logger;

/**
 * One Kafka cluster as a connection reaches it, for {@link IdleWatch}: the topics its idle streams read, their end
 * offsets in one request per round, and which streams have records waiting. Only the watch thread uses it.
 */
final class IdleCluster {
    private static final Logger LOG = Logger.getLogger(IdleCluster.class);
    private static final Duration API_TIMEOUT = Duration.ofSeconds(15);
    /** A cluster that cannot be reached is asked again after this, doubling while it stays so. */
    private static final Backoff BACKOFF = Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30));

    private final PipelineSettings settings;
    private final Map<String, String> properties;
    private Admin admin;
    private Set<String> topicNames = Set.of();
    private final Map<String, Integer> partitionCounts = new HashMap<>();
    /** The topics each pattern matches among {@link #topicNames}. */
    private final Map<String, List<String>> matches = new HashMap<>();
    /**
     * Each stream's partitions as of the last topic refresh. A stream's topics are described once when it is first
     * seen; a pattern's new topics are found at the next refresh, a named topic as soon as it exists.
     */
    private final Map<StreamPipeline, List<TopicPartition>> partitionsOf = new IdentityHashMap<>();
    /** Topics streams name (subscribe or assign) that did not exist when their partitions were resolved. */
    private final Set<String> missing = new HashSet<>();
    private long nextRefreshNanos;
    private long retryAtNanos;
    private final Backoff.Retries retries = BACKOFF.retries();
    private Map<TopicPartition, Long> lastLatest = Map.of();
    /** Idle streams found with nothing waiting, with the positions they had then. */
    private final Map<StreamPipeline, Map<PartitionKey, Long>> settled = new IdentityHashMap<>();

    IdleCluster(PipelineSettings settings, Map<String, String> properties) {
        this.settings = settings;
        this.properties = properties;
    }

    /** The connection properties this cluster's admin client was opened with. */
    Map<String, String> properties() {
        return properties;
    }

    void check(List<StreamPipeline> idle) {
        long now = System.nanoTime();
        if (now < retryAtNanos) {
            return;
        }
        try {
            Map<StreamPipeline, List<TopicPartition>> reads = resolve(idle, now);
            Set<TopicPartition> all = new HashSet<>();
            reads.values().forEach(all::addAll);
            Map<TopicPartition, Long> latest = offsets(all, OffsetSpec.latest());
            // Most idle streams see the same end offsets round after round: only look again at a stream when
            // one of its partitions moved or it went idle anew (new positions).
            Set<TopicPartition> moved = new HashSet<>();
            latest.forEach((tp, end) -> {
                if (!end.equals(lastLatest.get(tp))) {
                    moved.add(tp);
                }
            });
            lastLatest = latest;
            settled.keySet().retainAll(reads.keySet());
            Map<StreamPipeline, List<TopicPartition>> toDecide = new IdentityHashMap<>();
            reads.forEach((pipeline, partitions) -> {
                if (settled.get(pipeline) != pipeline.idlePositions()
                        || !moved.isEmpty() && partitions.stream().anyMatch(moved::contains)) {
                    toDecide.put(pipeline, partitions);
                }
            });
            Set<TopicPartition> unpositioned = new HashSet<>();
            toDecide.forEach((pipeline, partitions) -> {
                Map<PartitionKey, Long> at = pipeline.idlePositions();
                for (TopicPartition tp : partitions) {
                    if (!at.containsKey(key(tp))) {
                        unpositioned.add(tp);
                    }
                }
            });
            Map<TopicPartition, Long> earliest = offsets(unpositioned, OffsetSpec.earliest());
            toDecide.forEach((pipeline, partitions) -> {
                Map<PartitionKey, Long> at = pipeline.idlePositions();
                if (decide(pipeline, partitions, latest, earliest)) {
                    settled.remove(pipeline);
                } else {
                    settled.put(pipeline, at);
                }
            });
            retries.reset();
        } catch (Exception e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof java.util.concurrent.TimeoutException) {
                cause = new org.apache.kafka.common.errors.TimeoutException("no answer within the API timeout",
                        cause);
            }
            String why = FailureMessages.describe(cause, properties);
            idle.forEach(p -> p.idleCheckFailed(why));
            settled.clear();
            retryAtNanos = System.nanoTime() + retries.next().toNanos();
            closeAdmin();
            LOG.debugf("idle streams' cluster check failed: %s", why);
        }
    }

    /** Reports the stream's end offsets and activates it when records wait; true when it did. */
    private boolean decide(StreamPipeline pipeline, List<TopicPartition> partitions,
            Map<TopicPartition, Long> latest, Map<TopicPartition, Long> earliest) {
        Map<PartitionKey, Long> at = pipeline.idlePositions();
        Map<PartitionKey, Long> ends = new HashMap<>();
        boolean waiting = false;
        for (TopicPartition tp : partitions) {
            Long end = latest.get(tp);
            if (end == null) {
                continue;
            }
            PartitionKey key = key(tp);
            ends.put(key, end);
            Long from = at.containsKey(key) ? at.get(key) : earliest.get(tp);
            // A partition that ends before the stream's position belongs to a topic deleted and created again:
            // the pipeline finds out which (topic ids) and reads the new one from its beginning.
            if (from != null && (end > from || end > 0 && end < from)) {
                waiting = true;
            }
        }
        Subscription subscription = pipeline.spec().subscription();
        List<String> absent = !SubscriptionTopics.namesTopics(subscription) ? List.of()
                : topics(subscription).stream().filter(t -> !topicNames.contains(t)).toList();
        pipeline.idleEndOffsets(ends, absent, waiting);
        if (waiting) {
            pipeline.activate();
        }
        return waiting;
    }

    /** The partitions each idle stream reads now; topic metadata is refreshed every topic-refresh. */
    private Map<StreamPipeline, List<TopicPartition>> resolve(List<StreamPipeline> idle, long now)
            throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
        boolean refresh = now >= nextRefreshNanos;
        if (refresh) {
            topicNames = listTopics();
            matches.clear();
            partitionCounts.keySet().retainAll(topicNames);
            partitionsOf.clear();
            missing.clear();
        } else if (!missing.isEmpty()) {
            // A stream names a topic that did not exist at the last look. It is usually about to: the first
            // produce creates it. So look again every round, not only at the next refresh, with one cheap
            // metadata request; the streams re-resolve from the cached partition counts once one appears.
            Set<String> names = listTopics();
            if (missing.stream().anyMatch(names::contains)) {
                topicNames = names;
                matches.clear();
                partitionsOf.clear();
                missing.clear();
            }
        }
        Set<String> describe = new HashSet<>();
        for (StreamPipeline pipeline : idle) {
            if (!partitionsOf.containsKey(pipeline)) {
                Subscription subscription = pipeline.spec().subscription();
                for (String topic : topics(subscription)) {
                    if (refresh || !partitionCounts.containsKey(topic)) {
                        describe.add(topic);
                    }
                    if (SubscriptionTopics.namesTopics(subscription) && !topicNames.contains(topic)) {
                        missing.add(topic);
                    }
                }
            }
        }
        describe(describe);
        if (refresh) {
            nextRefreshNanos = now + settings.topicRefresh().toNanos();
        }
        Map<StreamPipeline, List<TopicPartition>> reads = new IdentityHashMap<>();
        for (StreamPipeline pipeline : idle) {
            reads.put(pipeline, partitionsOf.computeIfAbsent(pipeline, p -> partitions(p.spec().subscription())));
        }
        return reads;
    }

    private Set<String> listTopics() throws ExecutionException, InterruptedException,
            java.util.concurrent.TimeoutException {
        return admin().listTopics().names().get(API_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private List<TopicPartition> partitions(Subscription subscription) {
        return SubscriptionTopics.partitions(subscription, topics(subscription), partitionCounts);
    }

    private Collection<String> topics(Subscription subscription) {
        if (subscription instanceof Subscription.Pattern pattern) {
            // Topic names change only at a refresh; every round would otherwise match every pattern again.
            return matches.computeIfAbsent(pattern.regex(),
                    r -> List.copyOf(SubscriptionTopics.matching(topicNames, pattern)));
        }
        return SubscriptionTopics.topics(subscription, Set::of);
    }

    /** Partition counts of existing topics; a topic that does not exist (yet) reads no partition. */
    private void describe(Set<String> topics) throws InterruptedException, ExecutionException,
            java.util.concurrent.TimeoutException {
        Set<String> existing = new HashSet<>(topics);
        existing.retainAll(topicNames);
        topics.stream().filter(t -> !topicNames.contains(t)).forEach(partitionCounts::remove);
        if (existing.isEmpty()) {
            return;
        }
        Map<String, KafkaFuture<TopicDescription>> described = admin().describeTopics(existing).topicNameValues();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> e : described.entrySet()) {
            try {
                partitionCounts.put(e.getKey(),
                        e.getValue().get(API_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).partitions().size());
            } catch (ExecutionException ex) {
                if (!(ex.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw ex;
                }
                partitionCounts.remove(e.getKey());
            }
        }
    }

    private Map<TopicPartition, Long> offsets(Set<TopicPartition> partitions, OffsetSpec spec)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(tp -> request.put(tp, spec));
        // The consumers read committed records only; an open transaction's records are not waiting yet.
        ListOffsetsResult result = admin().listOffsets(request,
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED));
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (TopicPartition tp : partitions) {
            try {
                offsets.put(tp, result.partitionResult(tp).get(API_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .offset());
            } catch (ExecutionException e) {
                // A partition deleted since the metadata refresh: nothing waits there.
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
        }
        return offsets;
    }

    private Admin admin() {
        if (admin == null) {
            // The connection may shorten the timeouts (the tests do); it rarely lengthens them usefully.
            admin = Admin.create(AdminConfigs.of(properties, "tributary-idle-watch", API_TIMEOUT));
        }
        return admin;
    }

    private void closeAdmin() {
        if (admin != null) {
            try {
                admin.close(Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                LOG.debugf("closing an admin client failed: %s", e.getMessage());
            }
            admin = null;
        }
        // The next successful round starts with fresh metadata.
        nextRefreshNanos = 0;
    }

    void close() {
        closeAdmin();
    }

    private static PartitionKey key(TopicPartition tp) {
        return new PartitionKey(tp.topic(), tp.partition());
    }
}
