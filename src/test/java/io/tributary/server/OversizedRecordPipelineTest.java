package io.tributary.server;

import static io.tributary.testing.KafkaTestSupport.coordinates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record far larger than usual (SPEC 4, oversized records): a broker and topic that allow 40 MB, a 24 MB JSON value
 * among small ones, a batch bound of 4 MB. The record is ingested whole, the small records
 * around it exactly once, the stream stays RUNNING, and the Delta log stays small (statistics keep a prefix only).
 */
class OversizedRecordPipelineTest {
    static final int BIG = 24_000_000; // over Jackson's default 20M-character string cap
    static final String JSON = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
            + "\"name\":{\"type\":\"string\"}}}";

    @TempDir
    static Path dir;
    static EmbeddedKafka kafka;
    static Tables tables;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, Map.of("message.max.bytes", String.valueOf(40 << 20)));
        tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    static byte[] json(long id, String name) {
        return ("{\"id\":" + id + ",\"name\":\"" + name + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRecordOfTwentyFourMegabytesIsIngestedWholeAndNothingAroundItIsLost() throws Exception {
        String topic = "big";
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1)
                    .configs(Map.of("max.message.bytes", String.valueOf(40 << 20))))).all().get();
        }
        Map<String, String> connection = Map.of("bootstrap.servers", kafka.bootstrapServers());
        PipelineSpec spec;
        try (KafkaTestSupport topics = new KafkaTestSupport(kafka.bootstrapServers())) {
            spec = KafkaStreamFixture.create(tables, "oversized", new Subscription.Topics(List.of(topic)),
                    new SchemaSource.Plain(), new SchemaSource.JsonSchema(JSON), topics.endOffsets(topic), connection);
        }
        PipelineSettings settings = new PipelineSettings(Duration.ofMillis(300), 100_000, 4L << 20,
                Duration.ofSeconds(1));
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, settings);
        pipeline.start();
        char[] filler = new char[BIG];
        Arrays.fill(filler, 'x');
        filler[0] = 'a';
        filler[BIG - 1] = 'z';
        String bigName = new String(filler);
        List<String> want = new ArrayList<>();
        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", kafka.bootstrapServers(),
                "max.request.size", String.valueOf(40 << 20), "buffer.memory", String.valueOf(96 << 20)),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 30; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, json(i, "small" + i))).get();
                producer.send(new ProducerRecord<>(topic, 1, null, json(i, "small" + i))).get();
            }
            producer.send(new ProducerRecord<>(topic, 0, null, json(30, bigName))).get();
            for (int i = 31; i < 61; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, json(i, "small" + i))).get();
                producer.send(new ProducerRecord<>(topic, 1, null, json(i, "small" + i))).get();
            }
        }
        for (int p = 0; p < 2; p++) {
            for (int o = 0; o < (p == 0 ? 61 : 60); o++) {
                want.add(topic + "/" + p + "/" + o);
            }
        }
        try {
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                    .until(() -> pipeline.status().rowsIngested() >= want.size());
            List<Map<String, Object>> rows = KafkaTestSupport.rows(tables, spec.tableLocation());
            assertThat(coordinates(rows)).containsExactlyElementsOf(want);
            Map<String, Object> big = rows.get(30);
            @SuppressWarnings("unchecked")
            Map<String, Object> value = (Map<String, Object>) big.get("value");
            assertThat(value).as("the oversized value decoded, not NULL").isNotNull();
            assertThat(value.get("id")).isEqualTo(30L);
            String name = (String) value.get("name");
            assertThat(name.length()).isEqualTo(BIG);
            assertThat(name.equals(bigName)).as("the oversized value byte for byte").isTrue();
            for (Map<String, Object> r : rows) {
                if (r != big) {
                    assertThat(r.get("value")).isNotNull();
                }
            }
            IngestionStatus status = pipeline.status();
            assertThat(status.state()).isEqualTo(IngestionStatus.State.RUNNING);
            assertThat(status.decodeFailures()).isZero();
            // The log holds statistics with a 32-character prefix, not the value: a commit stays small.
            long logBytes;
            try (Stream<Path> files = Files.walk(Path.of(spec.tableLocation().replaceFirst("^file:", ""),
                    "_delta_log"))) {
                logBytes = files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
            }
            assertThat(logBytes).isLessThan(1 << 20);
        } finally {
            pipeline.stop();
        }
    }
}
