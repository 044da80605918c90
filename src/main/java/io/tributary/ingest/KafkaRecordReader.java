package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@link RecordReader} through one consumer that is assigned the partition it reads (no group, nothing committed to
 * Kafka), created on first use and kept across calls.
 */
public final class KafkaRecordReader implements RecordReader, AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Map<String, String> kafkaProperties;
    private KafkaConsumer<byte[], byte[]> consumer;

    public KafkaRecordReader(Map<String, String> kafkaProperties) {
        this.kafkaProperties = kafkaProperties;
    }

    @Override
    public synchronized List<SourceRecord> read(PartitionKey partition, long from, long until, int max) {
        List<SourceRecord> out = new ArrayList<>();
        TopicPartition tp = new TopicPartition(partition.topic(), partition.partition());
        KafkaConsumer<byte[], byte[]> c = consumer();
        try {
            c.assign(List.of(tp));
            long end = Math.min(until, c.endOffsets(List.of(tp), TIMEOUT).getOrDefault(tp, 0L));
            c.seek(tp, from);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            // The position moves past transaction markers too, so it, not the last record, says when to stop.
            while (out.size() < max && c.position(tp, TIMEOUT) < end) {
                if (System.nanoTime() > deadline) {
                    throw new org.apache.kafka.common.errors.TimeoutException("reading " + partition + " from offset "
                            + from + " took longer than " + TIMEOUT.toSeconds() + " s");
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500)).records(tp)) {
                    if (r.offset() >= from && r.offset() < until && out.size() < max) {
                        out.add(new SourceRecord(r.topic(), r.partition(), r.offset(), r.timestamp(), r.key(), r.value()));
                    }
                }
                if (!out.isEmpty() && out.get(out.size() - 1).offset() + 1 >= end) {
                    break;
                }
            }
            return out;
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        if (consumer == null) {
            Map<String, Object> config = new HashMap<>(kafkaProperties);
            config.put("client.id", "tributary-record-reader");
            config.remove("group.id");
            config.put("enable.auto.commit", "false");
            config.put("isolation.level", "read_committed");
            // A seek below the log start (retention) reads from the first record there is.
            config.put("auto.offset.reset", "earliest");
            config.put("max.poll.records", "5000");
            consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }
        return consumer;
    }

    @Override
    public synchronized void close() {
        if (consumer != null) {
            try {
                consumer.close(Duration.ofSeconds(1));
            } catch (RuntimeException e) {
                // Best effort; the next read opens a fresh consumer.
            }
            consumer = null;
        }
    }
}
