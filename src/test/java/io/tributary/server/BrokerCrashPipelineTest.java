package io.tributary.server;

import static io.tributary.testing.KafkaTestSupport.coordinates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaProcess;
import io.tributary.testing.KafkaTestSupport;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream's broker is killed with SIGKILL while records flow and the pipeline commits, and started again on the
 * same log directory a few seconds later: the pipeline rides it out by itself, and the table ends with exactly what
 * the broker holds, each record once.
 */
class BrokerCrashPipelineTest {
    private static final String TOPIC = "crashing-broker";
    private static final int PARTITIONS = 2;

    @TempDir
    Path dir;

    @Test
    void brokerKilledAndRestartedMidFlow() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String bootstrap = "127.0.0.1:" + port;
        KafkaProcess broker = KafkaProcess.start(dir.resolve("kafka"), port, Duration.ofSeconds(90));
        Tables tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
        StreamPipeline pipeline = null;
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicLong acknowledged = new AtomicLong();
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap);
                KafkaProducer<String, String> producer = new KafkaProducer<>(Map.<String, Object>of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                        ProducerConfig.ACKS_CONFIG, "all",
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 180_000,
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000),
                        new StringSerializer(), new StringSerializer())) {
            topics.createTopic(TOPIC, PARTITIONS);
            PipelineSpec spec = KafkaStreamFixture.create(tables, "broker_crash",
                    new Subscription.Topics(List.of(TOPIC)), new SchemaSource.Plain(), new SchemaSource.Plain(),
                    topics.endOffsets(TOPIC), Map.of("bootstrap.servers", bootstrap));
            pipeline = KafkaStreamFixture.pipeline(tables, spec, KafkaStreamFixture.FAST);
            pipeline.start();
            StreamPipeline running = pipeline;

            Thread flow = new Thread(() -> {
                for (long i = 0; producing.get(); i++) {
                    producer.send(new ProducerRecord<>(TOPIC, (int) (i % PARTITIONS), null, "v" + i),
                            (meta, error) -> {
                                if (error == null) {
                                    acknowledged.incrementAndGet();
                                }
                            });
                    if (i % 20 == 0) {
                        sleep(100); // about 200 records a second
                    }
                }
            }, "broker-crash-producer");
            flow.start();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> running.status().tableVersion() >= 3);
                broker.kill();
                sleep(3000);
                broker = KafkaProcess.start(dir.resolve("kafka"), port, Duration.ofSeconds(90));
                await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.get() > 0
                        && running.status().tableVersion() >= 6);
                // Keeps producing to the restarted broker for a while (about two seconds).
                long atRecovery = acknowledged.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.get() >= atRecovery + 400);
            } finally {
                producing.set(false);
                flow.join();
                producer.flush();
            }

            Map<PartitionKey, Long> end = topics.endOffsets(TOPIC);
            long held = end.values().stream().mapToLong(Long::longValue).sum();
            assertThat(held).as("the broker holds every acknowledged record").isGreaterThanOrEqualTo(
                    acknowledged.get());
            await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
                assertThat(running.status().state()).isEqualTo(IngestionStatus.State.RUNNING);
                assertThat(tables.open(spec.tableLocation()).positions()).isEqualTo(end);
            });
            List<Map<String, Object>> rows = KafkaTestSupport.rows(tables, spec.tableLocation());
            List<String> expected = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                for (long o = 0; o < end.get(new PartitionKey(TOPIC, p)); o++) {
                    expected.add(TOPIC + "/" + p + "/" + o);
                }
            }
            assertThat(coordinates(rows)).containsExactlyElementsOf(expected);
            assertThat(rows.stream().map(r -> r.get("value")))
                    .as("each record once").doesNotHaveDuplicates();
        } finally {
            producing.set(false);
            if (pipeline != null) {
                pipeline.stop();
            }
            broker.close();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
