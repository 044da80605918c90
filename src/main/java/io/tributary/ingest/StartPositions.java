package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Where a new stream starts reading (SPEC 4, start position): the end offset of every partition the subscription
 * matches when the stream is created. Topics and partitions that do not exist yet get no position; the pipeline reads
 * them from their beginning once they appear. Blocking: call it off the event loop.
 */
public final class StartPositions {
    private StartPositions() {}

    /**
     * @param kafkaProperties Kafka client properties of the stream's connection (with secrets)
     * @return the next offset to ingest per existing matching partition
     * @throws KafkaAccessException when Kafka cannot be reached or refuses the credentials; the message never
     *                              contains a secret
     */
    public static Map<PartitionKey, Long> capture(Map<String, String> kafkaProperties, Subscription subscription,
            Duration timeout) {
        return captureWithTopicIds(kafkaProperties, subscription, timeout).positions();
    }

    /**
     * The start positions and the topic id of every topic they belong to, read in the same request: recorded with the
     * positions, the ids tell a topic recreated before the stream's first commit from the one the positions were read
     * on (see {@link io.tributary.delta.Tables#create(String, org.apache.avro.Schema, Map, Map)}).
     *
     * @param positions the next offset to ingest per existing matching partition
     * @param topicIds topic name to Kafka topic id, for the topics of {@code positions}
     */
    public record Captured(Map<PartitionKey, Long> positions, Map<String, String> topicIds) {}

    /** As {@link #capture}, with the topics' ids. */
    public static Captured captureWithTopicIds(Map<String, String> kafkaProperties, Subscription subscription,
            Duration timeout) {
        if (subscription instanceof Subscription.Direct) {
            return new Captured(new TreeMap<>(), new TreeMap<>()); // no Kafka: producers start at sequence 0
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Admin admin = admin(kafkaProperties, timeout);
        try {
            Map<String, String> topicIds = new TreeMap<>();
            List<TopicPartition> partitions = resolve(admin, subscription, deadline, kafkaProperties, topicIds);
            Map<PartitionKey, Long> positions = new TreeMap<>();
            if (partitions.isEmpty()) {
                return new Captured(positions, topicIds);
            }
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            partitions.forEach(tp -> request.put(tp, OffsetSpec.latest()));
            ListOffsetsResult result = admin.listOffsets(request);
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> offsets =
                    await(result.all(), deadline, kafkaProperties);
            offsets.forEach((tp, info) -> positions.put(new PartitionKey(tp.topic(), tp.partition()), info.offset()));
            return new Captured(positions, topicIds);
        } finally {
            admin.close(Duration.ZERO);
        }
    }

    /**
     * The cluster's topic names, internal topics left out: what a {@code subscribe_pattern} is matched against (see
     * {@link SubscriptionTopics#matching}). Where a pattern is not followed by a consumer (AWS Lambda's event source mappings take fixed
     * topic names), this is how the topics it resolves to are found, at create and again on a schedule.
     *
     * @throws KafkaAccessException as {@link #capture} does
     */
    public static SortedSet<String> topicNames(Map<String, String> kafkaProperties, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Admin admin = admin(kafkaProperties, timeout);
        try {
            return new TreeSet<>(await(admin.listTopics(new ListTopicsOptions().listInternal(false)).names(),
                    deadline, kafkaProperties));
        } finally {
            admin.close(Duration.ZERO);
        }
    }

    private static Admin admin(Map<String, String> kafkaProperties, Duration timeout) {
        Map<String, Object> config = new HashMap<>(kafkaProperties);
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        config.put("request.timeout.ms", timeoutMs);
        config.put("default.api.timeout.ms", timeoutMs);
        config.putIfAbsent("client.id", "tributary-start-positions");
        try {
            return Admin.create(config);
        } catch (KafkaException e) {
            throw new KafkaAccessException("the Kafka client settings are not usable: " + SecretRedaction.message(e, kafkaProperties));
        }
    }

    private static List<TopicPartition> resolve(Admin admin, Subscription subscription, long deadline,
            Map<String, String> secrets, Map<String, String> topicIds) {
        SortedSet<String> topics = SubscriptionTopics.topics(subscription, () -> await(
                admin.listTopics(new ListTopicsOptions().listInternal(false)).names(), deadline, secrets));
        return SubscriptionTopics.partitions(subscription, topics,
                partitionCounts(admin, topics, deadline, secrets, topicIds));
    }

    /** Partition counts of the topics that exist; puts each existing topic's id into {@code topicIds}. */
    private static Map<String, Integer> partitionCounts(Admin admin, Collection<String> topics, long deadline,
            Map<String, String> secrets, Map<String, String> topicIds) {
        Map<String, Integer> counts = new HashMap<>();
        if (topics.isEmpty()) {
            return counts;
        }
        var futures = admin.describeTopics(topics).topicNameValues();
        for (String topic : topics) {
            try {
                TopicDescription description = await(futures.get(topic), deadline, secrets);
                counts.put(topic, description.partitions().size());
                if (description.topicId() != null && !Uuid.ZERO_UUID.equals(description.topicId())) {
                    topicIds.put(topic, description.topicId().toString());
                }
            } catch (MissingTopic e) {
                // Not there yet: no position; the pipeline reads it from its beginning once it appears.
            }
        }
        return counts;
    }

    private static <T> T await(org.apache.kafka.common.KafkaFuture<T> future, long deadline,
            Map<String, String> secrets) {
        long remaining = Math.max(1, deadline - System.nanoTime());
        try {
            return future.get(remaining, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new KafkaAccessException("Kafka did not answer in time: check bootstrap_servers, that the brokers "
                    + "are reachable from Tributary, and the security settings");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaAccessException("interrupted while waiting for Kafka");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof UnknownTopicOrPartitionException) {
                throw new MissingTopic();
            }
            if (KafkaTlsFailures.isTls(cause)) {
                throw new KafkaAccessException(KafkaTlsFailures.describe(cause,
                        secrets.getOrDefault("bootstrap.servers", "?")) + ": " + SecretRedaction.message(rootCause(cause), secrets));
            }
            if (cause instanceof AuthenticationException) {
                throw new KafkaAccessException("Kafka rejected the credentials: " + SecretRedaction.message(cause, secrets));
            }
            if (cause instanceof AuthorizationException) {
                throw new KafkaAccessException("Kafka denied access (the principal needs Describe on the topics "
                        + "and the cluster): " + SecretRedaction.message(cause, secrets));
            }
            if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw new KafkaAccessException("Kafka did not answer in time: check bootstrap_servers, that the "
                        + "brokers are reachable from Tributary, and the security settings");
            }
            throw new KafkaAccessException("asking Kafka for topics or offsets failed: " + SecretRedaction.message(cause, secrets));
        }
    }

    private static Throwable rootCause(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c;
    }

    private static final class MissingTopic extends RuntimeException {
        MissingTopic() {
            super(null, null, false, false);
        }
    }

    /** Kafka could not be reached or refused the stream's credentials. The message names no secret. */
    public static final class KafkaAccessException extends RuntimeException {
        public KafkaAccessException(String message) {
            super(message, null, false, false);
        }
    }
}
