package io.tributary.server;

import io.tributary.delta.PartitionKey;
import io.tributary.ingest.AdminConfigs;
import io.tributary.ingest.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
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
 * Wakes idle pipelines when records arrive for them. One thread for the whole server: every
 * {@link PipelineSettings#idleCheckInterval()} it asks each Kafka cluster (one admin client per connection, shared by
 * every idle stream on it) for the end offsets of all partitions its idle streams read, in one request, and
 * activates the streams whose partitions hold records past where they stand. The end offsets also keep an idle
 * stream's lag current, and a cluster that cannot be reached marks its idle streams FAILED with the reason.
 */
final class IdleWatch implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(IdleWatch.class);
    /** Reading the tables of streams never run here (after a restart) gets this much of each round. */
    private static final long LOAD_BUDGET_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final Duration API_TIMEOUT = Duration.ofSeconds(15);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final PipelineSettings settings;
    private final Set<StreamPipeline> pipelines = ConcurrentHashMap.newKeySet();
    /** Only the watch thread touches these. */
    private final Map<Map<String, String>, Cluster> clusters = new HashMap<>();
    /**
     * Each pipeline's cluster, so a round does not hash every stream's connection properties again (with 10k idle
     * streams that alone was a large part of a round).
     */
    private final Map<StreamPipeline, Cluster> clusterOf = new IdentityHashMap<>();
    private final Map<String, Pattern> patterns = new HashMap<>();
    private final Object sleeper = new Object();
    private volatile Thread thread;
    private volatile boolean closed;

    IdleWatch(PipelineSettings settings) {
        this.settings = settings;
    }

    /** Watches the pipeline from now on: it is activated whenever it is idle and records wait for it. */
    void watch(StreamPipeline pipeline) {
        pipelines.add(pipeline);
        startThread();
    }

    void forget(StreamPipeline pipeline) {
        pipelines.remove(pipeline);
    }

    @Override
    public void close() {
        closed = true;
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
        Thread t = thread;
        if (t != null) {
            // A round may be stuck on a broker that is shutting down too; what it still activates after this is
            // stopped by the caller, since activating a stopped pipeline does nothing.
            try {
                t.join(TimeUnit.SECONDS.toMillis(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized void startThread() {
        if (thread == null && !closed) {
            Thread t = new Thread(this::loop, "tributary-idle-watch");
            t.setDaemon(true);
            thread = t;
            t.start();
        }
    }

    private void loop() {
        long interval = settings.idleCheckInterval().toNanos();
        try {
            while (!closed) {
                long started = System.nanoTime();
                try {
                    check();
                } catch (Throwable e) {
                    // This thread is the only way idle streams come back: it must outlive any one bad round.
                    LOG.warnf(e, "checking idle streams failed");
                }
                pause(started + interval);
            }
        } finally {
            clusters.values().forEach(Cluster::close);
            clusters.clear();
        }
    }

    private void pause(long untilNanos) {
        synchronized (sleeper) {
            long left;
            while (!closed && (left = untilNanos - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(sleeper, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** One round over every idle pipeline. */
    void check() {
        Map<Cluster, List<StreamPipeline>> idleByCluster = new IdentityHashMap<>();
        long loadDeadline = System.nanoTime() + LOAD_BUDGET_NANOS;
        for (StreamPipeline pipeline : pipelines) {
            if (!pipeline.idle()) {
                continue;
            }
            if (pipeline.idlePositions() == null) {
                if (System.nanoTime() > loadDeadline) {
                    continue;
                }
                try {
                    pipeline.loadIdlePositions();
                } catch (RuntimeException e) {
                    // The pipeline itself retries and reports why the table cannot be read.
                    pipeline.activate();
                    continue;
                }
            }
            Cluster cluster = clusterOf.computeIfAbsent(pipeline,
                    p -> clusters.computeIfAbsent(p.spec().kafkaProperties(), Cluster::new));
            idleByCluster.computeIfAbsent(cluster, k -> new ArrayList<>()).add(pipeline);
        }
        clusterOf.keySet().retainAll(pipelines);
        clusters.values().removeIf(cluster -> {
            if (idleByCluster.containsKey(cluster)) {
                return false;
            }
            cluster.close();
            clusterOf.values().removeIf(c -> c == cluster);
            return true;
        });
        patterns.keySet().retainAll(regexes(idleByCluster));
        idleByCluster.forEach(Cluster::check);
    }

    private Set<String> regexes(Map<Cluster, List<StreamPipeline>> idleByCluster) {
        Set<String> regexes = new HashSet<>();
        idleByCluster.values().forEach(list -> list.forEach(p -> {
            if (p.spec().subscription() instanceof Subscription.Pattern pattern) {
                regexes.add(pattern.regex());
            }
        }));
        return regexes;
    }

    private Pattern pattern(String regex) {
        return patterns.computeIfAbsent(regex, Pattern::compile);
    }

    /** One Kafka cluster as the connection reaches it, with the topics its idle streams read. */
    private final class Cluster {
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
        private long backoffNanos;
        private Map<TopicPartition, Long> lastLatest = Map.of();
        /** Idle streams found with nothing waiting, with the positions they had then. */
        private final Map<StreamPipeline, Map<PartitionKey, Long>> settled = new IdentityHashMap<>();

        Cluster(Map<String, String> properties) {
            this.properties = properties;
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
                backoffNanos = 0;
            } catch (Exception e) {
                Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                if (cause instanceof java.util.concurrent.TimeoutException) {
                    cause = new org.apache.kafka.common.errors.TimeoutException("no answer within the API timeout",
                            cause);
                }
                String why = FailureMessages.describe(cause, properties);
                idle.forEach(p -> p.idleCheckFailed(why));
                settled.clear();
                backoffNanos = Math.min(MAX_BACKOFF_NANOS, Math.max(TimeUnit.SECONDS.toNanos(1), backoffNanos * 2));
                retryAtNanos = System.nanoTime() + backoffNanos;
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
            pipeline.idleEndOffsets(ends);
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
                        if (!(subscription instanceof Subscription.Pattern) && !topicNames.contains(topic)) {
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
            List<TopicPartition> partitions = new ArrayList<>();
            if (subscription instanceof Subscription.Assign assign) {
                assign.partitions().forEach((topic, ps) -> {
                    int count = partitionCounts.getOrDefault(topic, 0);
                    ps.stream().filter(p -> p < count).forEach(p -> partitions.add(new TopicPartition(topic, p)));
                });
            } else {
                for (String topic : topics(subscription)) {
                    int count = partitionCounts.getOrDefault(topic, 0);
                    for (int p = 0; p < count; p++) {
                        partitions.add(new TopicPartition(topic, p));
                    }
                }
            }
            return List.copyOf(partitions);
        }

        private List<String> topics(Subscription subscription) {
            if (subscription instanceof Subscription.Topics topics) {
                return topics.topics();
            }
            if (subscription instanceof Subscription.Assign assign) {
                return List.copyOf(assign.partitions().keySet());
            }
            // Topic names change only at a refresh; every round would otherwise match every pattern again.
            return matches.computeIfAbsent(((Subscription.Pattern) subscription).regex(), r -> {
                Pattern regex = pattern(r);
                return topicNames.stream().filter(t -> regex.matcher(t).matches()).toList();
            });
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
    }

    private static PartitionKey key(TopicPartition tp) {
        return new PartitionKey(tp.topic(), tp.partition());
    }
}
