package io.tributary.testing;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Topics, producing and reading tables back, for the ingestion tests. */
public final class KafkaTestSupport implements AutoCloseable {

    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> producer;

    public KafkaTestSupport(String bootstrapServers) {
        admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers));
        producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrapServers, "linger.ms", "5"),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    public void createTopic(String topic, int partitions) {
        try {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
        // Producing before every partition's leader serves it can leave the idempotent producer retrying a rejected
        // sequence until its delivery timeout, and the record is lost: wait until the partitions answer.
        endOffsets(topic);
    }

    public void addPartitions(String topic, int totalPartitions) {
        try {
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(totalPartitions))).all().get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The end offset of every partition of the topics: where a stream created now starts. A topic created a moment ago
     * may not be served yet by its leader, so this retries for a while.
     */
    public Map<PartitionKey, Long> endOffsets(String... topics) {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            try {
                return endOffsetsOnce(topics);
            } catch (IllegalStateException e) {
                if (System.currentTimeMillis() > deadline
                        || !(e.getCause() instanceof ExecutionException ee && ee.getCause() instanceof RetriableException)) {
                    throw e;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private Map<PartitionKey, Long> endOffsetsOnce(String... topics) {
        try {
            Map<TopicPartition, OffsetSpec> query = new HashMap<>();
            for (var d : admin.describeTopics(List.of(topics)).allTopicNames().get().values()) {
                d.partitions().forEach(p -> query.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
            }
            Map<PartitionKey, Long> out = new HashMap<>();
            admin.listOffsets(query).all().get()
                    .forEach((tp, info) -> out.put(new PartitionKey(tp.topic(), tp.partition()), info.offset()));
            return out;
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    public void send(String topic, int partition, byte[] key, byte[] value) {
        producer.send(new ProducerRecord<>(topic, partition, key, value));
    }

    public void flush() {
        producer.flush();
    }

    /** The table's rows by Kernel's scan, ordered by topic, partition and offset. */
    public static List<Map<String, Object>> rows(Tables tables, String location) {
        List<Map<String, Object>> out = new ArrayList<>();
        try (TableRows rows = tables.read(location)) {
            rows.forEachRemaining(out::add);
        }
        out.sort(Comparator.comparing((Map<String, Object> r) -> (String) r.get("kafka_topic"))
                .thenComparing(r -> (Integer) r.get("kafka_partition"))
                .thenComparing(r -> (Long) r.get("kafka_offset")));
        return out;
    }

    /** "topic/partition/offset" of every row, in table order: duplicates and gaps show up in comparisons. */
    public static List<String> coordinates(List<Map<String, Object>> rows) {
        return rows.stream().map(r -> r.get("kafka_topic") + "/" + r.get("kafka_partition") + "/"
                + r.get("kafka_offset")).toList();
    }

    @Override
    public void close() {
        producer.close();
        admin.close();
    }
}
