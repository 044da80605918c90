package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * {@link TopicIds} through one admin client, created on first use and kept (a warm Lambda or an active pipeline asks
 * once per batch: one metadata request, no new connection). Nothing is cached: an answer older than the batch could
 * miss a recreate that happened after it, and then the new topic's records would be committed as the old one's.
 */
public final class KafkaTopicIds implements TopicIds, AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(15);

    private final Map<String, String> kafkaProperties;
    private Admin admin;

    /** @param kafkaProperties the stream's Kafka client properties (with secrets) */
    public KafkaTopicIds(Map<String, String> kafkaProperties) {
        this.kafkaProperties = kafkaProperties;
    }

    @Override
    public synchronized Map<String, Topic> describe(Set<String> topics) {
        Map<String, Topic> out = new HashMap<>();
        if (topics.isEmpty()) {
            return out;
        }
        Map<String, KafkaFuture<TopicDescription>> described = admin().describeTopics(topics).topicNameValues();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> e : described.entrySet()) {
            TopicDescription d = await(e.getValue());
            if (d != null) {
                out.put(e.getKey(), new Topic(d.topicId().toString(), d.partitions().size()));
            }
        }
        return out;
    }

    @Override
    public synchronized Map<PartitionKey, Long> endOffsets(Set<PartitionKey> partitions) {
        return listOffsets(partitions, OffsetSpec.latest());
    }

    @Override
    public synchronized Map<PartitionKey, Long> startOffsets(Set<PartitionKey> partitions) {
        return listOffsets(partitions, OffsetSpec.earliest());
    }

    private Map<PartitionKey, Long> listOffsets(Set<PartitionKey> partitions, OffsetSpec spec) {
        Map<PartitionKey, Long> out = new HashMap<>();
        if (partitions.isEmpty()) {
            return out;
        }
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(p -> request.put(new TopicPartition(p.topic(), p.partition()), spec));
        var result = admin().listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED));
        for (PartitionKey p : partitions) {
            var info = await(result.partitionResult(new TopicPartition(p.topic(), p.partition())));
            if (info != null) {
                out.put(p, info.offset());
            }
        }
        return out;
    }

    /** The answer, or null when the topic or partition does not exist; any other failure is thrown. */
    private <T> T await(KafkaFuture<T> future) {
        try {
            return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return null;
            }
            closeAdmin();
            throw e.getCause() instanceof RuntimeException r ? r
                    : new IllegalStateException("asking Kafka for topic ids failed", e.getCause());
        } catch (TimeoutException e) {
            closeAdmin();
            throw new org.apache.kafka.common.errors.TimeoutException("Kafka did not say within " + TIMEOUT.toSeconds()
                    + " s which topics the batch's records belong to");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking Kafka for topic ids", e);
        }
    }

    private Admin admin() {
        if (admin == null) {
            admin = Admin.create(AdminConfigs.of(kafkaProperties, "tributary-topic-ids", TIMEOUT));
        }
        return admin;
    }

    private void closeAdmin() {
        if (admin != null) {
            try {
                admin.close(Duration.ofSeconds(1));
            } catch (RuntimeException e) {
                // Closing is best effort; the next call opens a fresh client.
            }
            admin = null;
        }
    }

    @Override
    public synchronized void close() {
        closeAdmin();
    }
}
