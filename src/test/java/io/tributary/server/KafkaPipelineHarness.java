package io.tributary.server;

import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real broker and a warehouse per test class, and the pipelines a test starts, stopped after it. Every table is
 * read back with Kernel's scan.
 */
abstract class KafkaPipelineHarness {

    static final String JSON = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
            + "\"name\":{\"type\":\"string\"}}}";
    static final String AVRO = "{\"type\":\"record\",\"name\":\"Event\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},"
            + "{\"name\":\"name\",\"type\":\"string\"}]}";
    static final String PROTO = "syntax = \"proto3\";\npackage ex;\nmessage Event {\n  int64 id = 1;\n  string name = 2;\n}\n";
    static final PipelineSettings FAST = KafkaStreamFixture.FAST;

    @TempDir
    static Path dir;
    static EmbeddedKafka kafka;
    static KafkaTestSupport topics;
    static Tables tables;
    final List<StreamPipeline> running = new ArrayList<>();

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, Map.of());
        topics = new KafkaTestSupport(kafka.bootstrapServers());
        tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
    }

    @AfterAll
    static void stopKafka() {
        topics.close();
        kafka.close();
    }

    @AfterEach
    void stopPipelines() {
        running.forEach(StreamPipeline::stop);
    }

    PipelineSpec stream(String name, Subscription subscription, SchemaSource value, Map<PartitionKey, Long> start) {
        return KafkaStreamFixture.create(tables, name, subscription, new SchemaSource.Plain(), value, start,
                Map.of("bootstrap.servers", kafka.bootstrapServers()));
    }

    StreamPipeline start(PipelineSpec spec, PipelineSettings settings) {
        return start(spec, settings, KafkaConsumers::create);
    }

    StreamPipeline start(PipelineSpec spec, PipelineSettings settings, StreamPipeline.ConsumerFactory consumers) {
        StreamPipeline p = KafkaStreamFixture.pipeline(tables, spec, settings, consumers, new SimpleMeterRegistry());
        p.start();
        running.add(p);
        return p;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String json(long i) {
        return "{\"id\":" + i + ",\"name\":\"n" + i + "\",\"extra\":true}";
    }

    static List<Map<String, Object>> awaitRows(PipelineSpec spec, int count) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> KafkaTestSupport.rows(tables, spec.tableLocation()).size() >= count);
        return KafkaTestSupport.rows(tables, spec.tableLocation());
    }

    static List<String> expected(String topic, int partitions, long from, long to) {
        List<String> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            for (long o = from; o < to; o++) {
                out.add(topic + "/" + p + "/" + o);
            }
        }
        return out;
    }
}
