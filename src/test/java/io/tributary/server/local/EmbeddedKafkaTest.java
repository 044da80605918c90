package io.tributary.server.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaTest {

    @Test
    void producesAndConsumesAndKeepsDataAcrossRestart(@TempDir Path dir) throws Exception {
        int port;
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0, Map.of())) {
            port = kafka.port();
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic("t", 2, (short) 1))).all().get();
            }
            try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers()),
                    new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>("t", 0, "k", "v1")).get();
            }
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, port, Map.of())) {
            Properties p = new Properties();
            p.put("bootstrap.servers", kafka.bootstrapServers());
            try (var consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
                consumer.assign(List.of(new TopicPartition("t", 0)));
                consumer.seekToBeginning(consumer.assignment());
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofSeconds(10));
                assertThat(records.records(new TopicPartition("t", 0))).extracting(r -> r.value()).containsExactly("v1");
            }
        }
    }

    /**
     * Local mode's broker runs in the server's JVM: what it keeps on the heap the pipelines cannot use. Kafka's log
     * cleaner allocates its dedupe buffer (128 MB by default) when the broker starts; with it, a local-mode server at
     * {@code -Xmx256m} failed every batch of 300 kB records with "Java heap space".
     */
    @Test
    void leavesTheHeapToTheServer(@TempDir Path dir) {
        long before = heapAfterGc();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0, Map.of())) {
            assertThat(heapAfterGc() - before).as("heap the idle broker keeps").isLessThan(48L << 20);
        }
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
