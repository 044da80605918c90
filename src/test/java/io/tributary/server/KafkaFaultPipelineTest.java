package io.tributary.server;

import static io.tributary.testing.KafkaTestSupport.coordinates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import io.tributary.testing.S3ProxyServer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Failures outside the pipeline: it goes FAILED with the reason, recovers by itself and loses or doubles nothing. */
class KafkaFaultPipelineTest {

    @TempDir
    Path dir;

    @Test
    void kafkaUnreachableThenBack() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Tables tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
        PipelineSpec spec = KafkaStreamFixture.create(tables, "unreachable",
                new Subscription.Topics(List.of("late")), new SchemaSource.Plain(), new SchemaSource.Plain(),
                Map.of(), Map.of("bootstrap.servers", "127.0.0.1:" + port, "default.api.timeout.ms", "3000"));
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, KafkaStreamFixture.FAST);
        pipeline.start();
        try {
            await().atMost(Duration.ofSeconds(40)).untilAsserted(() -> {
                IngestionStatus s = pipeline.status();
                assertThat(s.state()).isEqualTo(IngestionStatus.State.FAILED);
                assertThat(s.stateMessage()).startsWith("cannot reach Kafka at 127.0.0.1:" + port);
            });
            try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), port, Map.of());
                    KafkaTestSupport topics = new KafkaTestSupport(kafka.bootstrapServers())) {
                topics.createTopic("late", 1);
                for (int i = 0; i < 10; i++) {
                    topics.send("late", 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
                }
                topics.flush();
                await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
                    assertThat(pipeline.status().state()).isEqualTo(IngestionStatus.State.RUNNING);
                    assertThat(coordinates(KafkaTestSupport.rows(tables, spec.tableLocation())))
                            .containsExactlyElementsOf(expected("late", 1, 10));
                });
            }
        } finally {
            pipeline.stop();
        }
    }

    @Test
    void s3StoppedAndRestartedDuringCommits() throws Exception {
        try (S3ProxyServer s3 = S3ProxyServer.start(dir.resolve("s3")).exportCredentials();
                EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, Map.of());
                KafkaTestSupport topics = new KafkaTestSupport(kafka.bootstrapServers())) {
            s3.createBucket("lake");
            Tables tables = Tables.forWarehouse("s3://lake/warehouse", Optional.of(s3.endpoint()));
            topics.createTopic("s3-topic", 2);
            PipelineSpec spec = KafkaStreamFixture.create(tables, "on_s3",
                    new Subscription.Topics(List.of("s3-topic")), new SchemaSource.Plain(), new SchemaSource.Plain(),
                    topics.endOffsets("s3-topic"), Map.of("bootstrap.servers", kafka.bootstrapServers()));
            StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec,
                    new PipelineSettings(Duration.ofMillis(500), 100_000, 64L << 20, Duration.ofSeconds(1)),
                    new SimpleMeterRegistry());
            pipeline.start();
            AtomicBoolean producing = new AtomicBoolean(true);
            AtomicInteger produced = new AtomicInteger();
            Thread producer = new Thread(() -> {
                while (producing.get()) {
                    int i = produced.getAndIncrement();
                    topics.send("s3-topic", i % 2, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
                    if (i % 20 == 0) {
                        // About 200 records a second: commits keep running while S3 goes away.
                        topics.flush();
                        sleep(100);
                    }
                }
                topics.flush();
            });
            try {
                producer.start();
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> pipeline.status().tableVersion() >= 3);
                s3.stop();
                await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                    IngestionStatus s = pipeline.status();
                    assertThat(s.state()).isEqualTo(IngestionStatus.State.FAILED);
                    assertThat(s.stateMessage()).startsWith("writing the ingestion table")
                            .doesNotContain(S3ProxyServer.SECRET_KEY);
                });
                s3.start();
                // Keeps producing after S3 is back, so the recovery also sees new records.
                int atRestart = produced.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> produced.get() >= atRestart + 200);
                producing.set(false);
                producer.join();
                int total = produced.get();
                await().atMost(Duration.ofSeconds(180)).untilAsserted(() -> {
                    assertThat(pipeline.status().state()).isEqualTo(IngestionStatus.State.RUNNING);
                    Map<PartitionKey, Long> positions = tables.open(spec.tableLocation()).positions();
                    assertThat(positions.get(new PartitionKey("s3-topic", 0))
                            + positions.get(new PartitionKey("s3-topic", 1))).isEqualTo(total);
                });
                List<String> want = new ArrayList<>();
                for (int p = 0; p < 2; p++) {
                    long n = (total + 1 - p) / 2;
                    for (long o = 0; o < n; o++) {
                        want.add("s3-topic/" + p + "/" + o);
                    }
                }
                assertThat(coordinates(KafkaTestSupport.rows(tables, spec.tableLocation())))
                        .containsExactlyElementsOf(want);
            } finally {
                producing.set(false);
                pipeline.stop();
            }
        }
    }

    private static List<String> expected(String topic, int partitions, long count) {
        List<String> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            for (long o = 0; o < count; o++) {
                out.add(topic + "/" + p + "/" + o);
            }
        }
        return out;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
