package io.tributary.server;

import static io.tributary.testing.KafkaTestSupport.coordinates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.IngestionStatus.State;
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
 * The stall watchdog against real brokers: a stream whose broker stops while records flow is STALLED within 10
 * trigger intervals, says that its consumer is stuck and on which partitions, stays so while the broker is away, and is
 * RUNNING again by itself once the broker is back; a stream that commits but falls behind its topic by more than
 * {@code max-staleness} is STALLED too; a quiet or idle stream never is.
 */
class StallWatchdogTest extends KafkaPipelineHarness {
    private static final String TOPIC = "stalling";
    /** 300 ms: ten intervals are 3 s, the watchdog's floor, so the window is exactly 10 trigger intervals. */
    private static final PipelineSettings SETTINGS = new PipelineSettings(Duration.ofMillis(300), 100_000, 64L << 20,
            Duration.ofSeconds(1));
    private static final Duration WINDOW = StallWatch.window(SETTINGS);

    @TempDir
    Path own;

    @Test
    void aStoppedBrokerStallsTheStreamUntilItIsBack() throws Exception {
        assertThat(WINDOW).isEqualTo(SETTINGS.triggerInterval().multipliedBy(10));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String bootstrap = "127.0.0.1:" + port;
        KafkaProcess broker = KafkaProcess.start(own.resolve("kafka"), port, Duration.ofSeconds(90));
        Tables tables = Tables.forWarehouse(own.resolve("warehouse").toString(), Optional.empty());
        StreamPipeline pipeline = null;
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicLong acknowledged = new AtomicLong();
        try (KafkaTestSupport admin = new KafkaTestSupport(bootstrap);
                KafkaProducer<String, String> producer = new KafkaProducer<>(Map.<String, Object>of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                        ProducerConfig.ACKS_CONFIG, "all",
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 180_000,
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000),
                        new StringSerializer(), new StringSerializer())) {
            admin.createTopic(TOPIC, 2);
            PipelineSpec spec = KafkaStreamFixture.create(tables, "stalling", new Subscription.Topics(List.of(TOPIC)),
                    new SchemaSource.Plain(), new SchemaSource.Plain(), admin.endOffsets(TOPIC),
                    Map.of("bootstrap.servers", bootstrap));
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            pipeline = KafkaStreamFixture.pipeline(tables, spec, SETTINGS, meters);
            pipeline.start();
            StreamPipeline p = pipeline;
            Thread flow = new Thread(() -> {
                for (long i = 0; producing.get(); i++) {
                    producer.send(new ProducerRecord<>(TOPIC, (int) (i % 2), null, "v" + i), (meta, error) -> {
                        if (error == null) {
                            acknowledged.incrementAndGet();
                        }
                    });
                    if (i % 20 == 0) {
                        sleep(100);
                    }
                }
            }, "stalling-producer");
            flow.start();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> p.status().tableVersion() >= 3);
                assertThat(p.status().state()).isEqualTo(State.RUNNING);

                broker.kill();
                long killed = System.nanoTime();
                // A little over 10 trigger intervals: the last commit came at most one interval before the kill.
                await().atMost(WINDOW.plusSeconds(2)).pollInterval(Duration.ofMillis(50))
                        .until(() -> p.status().state() == State.STALLED);
                long tookMs = (System.nanoTime() - killed) / 1_000_000;
                System.out.println("STALLED " + tookMs + " ms after the broker was killed (window " + WINDOW + ")");
                IngestionStatus stalled = p.status();
                assertThat(stalled.stateMessage()).startsWith("consumer: no record received and nothing committed")
                        .contains(TOPIC + "-0").contains(TOPIC + "-1");
                assertThat(meters.get("tributary.ingest.stalled").gauge().value()).isEqualTo(1.0);
                // The pipeline itself finds Kafka unreachable once its probes time out (15 s each) and retries:
                // still STALLED all along, now with the reason.
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    IngestionStatus s = p.status();
                    assertThat(s.state()).isEqualTo(State.STALLED);
                    return s.stateMessage().contains("; last error: cannot reach Kafka at " + bootstrap);
                });
                await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                        .until(() -> p.status().state() == State.STALLED);

                broker = KafkaProcess.start(own.resolve("kafka"), port, Duration.ofSeconds(90));
                await().atMost(Duration.ofSeconds(90)).until(() -> p.status().state() == State.RUNNING);
                assertThat(p.status().stateMessage()).isNull();
                assertThat(meters.get("tributary.ingest.stalled").gauge().value()).isZero();
                long atRecovery = acknowledged.get();
                await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.get() >= atRecovery + 200);
            } finally {
                producing.set(false);
                flow.join();
                producer.flush();
            }
            Map<PartitionKey, Long> end = admin.endOffsets(TOPIC);
            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
                assertThat(p.status().state()).isEqualTo(State.RUNNING);
                assertThat(tables.open(spec.tableLocation()).positions()).isEqualTo(end);
            });
            List<String> expected = new ArrayList<>();
            for (int part = 0; part < 2; part++) {
                for (long o = 0; o < end.get(new PartitionKey(TOPIC, part)); o++) {
                    expected.add(TOPIC + "/" + part + "/" + o);
                }
            }
            assertThat(coordinates(KafkaTestSupport.rows(tables, spec.tableLocation())))
                    .containsExactlyElementsOf(expected);
        } finally {
            producing.set(false);
            if (pipeline != null) {
                pipeline.stop();
            }
            broker.close();
        }
    }

    @Test
    void aStreamThatCommitsButFallsBehindItsTopicIsStalledUntilItCatchesUp() {
        topics.createTopic("behind", 1);
        PipelineSpec spec = stream("behind", new Subscription.Topics(List.of("behind")), new SchemaSource.Plain(),
                topics.endOffsets("behind"));
        // Ten records a batch, so 4,000 records take hundreds of commits; two seconds of staleness allowed.
        PipelineSettings slow = new PipelineSettings(Duration.ofMillis(300), 10, 64L << 20, Duration.ofSeconds(1),
                PipelineSettings.NEVER, PipelineSettings.SESSION_TIMEOUT, Duration.ofSeconds(2));
        StreamPipeline pipeline = start(spec, slow);
        await().atMost(Duration.ofSeconds(30)).until(() -> pipeline.status().partitions().size() == 1);
        for (int i = 0; i < 4000; i++) {
            topics.send("behind", 0, null, utf8("v" + i));
        }
        topics.flush();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> pipeline.status().state() == State.STALLED);
        IngestionStatus behind = pipeline.status();
        assertThat(behind.stateMessage()).startsWith("behind: records of behind-0 have waited")
                .contains("more than tributary.ingest.max-staleness (PT2S)");
        assertThat(behind.tableVersion()).as("it commits meanwhile").isPositive();
        assertThat(behind.partitions().get(0).committedOffset()).isLessThan(4000);
        await().atMost(Duration.ofSeconds(180)).untilAsserted(() -> {
            assertThat(tables.open(spec.tableLocation()).positions().get(new PartitionKey("behind", 0)))
                    .isEqualTo(4000);
            assertThat(pipeline.status().state()).isEqualTo(State.RUNNING);
        });
    }

    @Test
    void aQuietStreamAndAnIdleOneAreNeverStalled() {
        topics.createTopic("quiet", 2);
        PipelineSpec spec = stream("quiet", new Subscription.Topics(List.of("quiet")), new SchemaSource.Plain(),
                topics.endOffsets("quiet"));
        // Idles one second after its last record; the idle watch looks every trigger interval.
        PipelineSettings idling = new PipelineSettings(Duration.ofMillis(300), 100_000, 64L << 20,
                Duration.ofSeconds(1), Duration.ofSeconds(1));
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, idling, new SimpleMeterRegistry());
        running.add(pipeline);
        try (IdleWatch watch = new IdleWatch(idling)) {
            watch.watch(pipeline);
            await().during(WINDOW.multipliedBy(2)).atMost(WINDOW.multipliedBy(3))
                    .until(() -> pipeline.status().state() == State.RUNNING);
            for (int i = 0; i < 10; i++) {
                topics.send("quiet", i % 2, null, utf8("v" + i));
            }
            topics.flush();
            // Woken after more than a window of idling: the watchdog's clock starts at the wake-up, not at the
            // stream's last progress, so joining the group and the first commit are no stall.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
                IngestionStatus s = pipeline.status();
                assertThat(s.state()).as(s.stateMessage()).isEqualTo(State.RUNNING);
                return s.rowsIngested() == 10;
            });
            assertThat(pipeline.activations()).isEqualTo(1);
            // Active and caught up, then idle again: never stalled, and nothing waits.
            await().during(WINDOW.multipliedBy(2)).atMost(WINDOW.multipliedBy(3))
                    .until(() -> pipeline.status().state() == State.RUNNING);
            assertThat(pipeline.status().partitions()).allSatisfy(p -> assertThat(p.lag()).isZero());
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
