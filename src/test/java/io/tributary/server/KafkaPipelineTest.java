package io.tributary.server;

import static io.tributary.testing.KafkaTestSupport.coordinates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.CodedOutputStream;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server pipeline against a real broker and real Delta tables, every table read back with Kernel's scan. */
class KafkaPipelineTest {

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

    @Test
    void subscribeIngestsExactlyWhatWasProducedAfterCreate() {
        topics.createTopic("sub-a", 2);
        topics.createTopic("sub-b", 2);
        for (int p = 0; p < 2; p++) {
            for (int i = 0; i < 5; i++) {
                topics.send("sub-a", p, utf8("early"), utf8(json(-1)));
                topics.send("sub-b", p, utf8("early"), utf8(json(-1)));
            }
        }
        topics.flush();
        PipelineSpec spec = stream("subscribe", new Subscription.Topics(List.of("sub-a", "sub-b")),
                new SchemaSource.JsonSchema(JSON), topics.endOffsets("sub-a", "sub-b"));
        StreamPipeline pipeline = start(spec, FAST);
        for (int i = 5; i < 25; i++) {
            for (int p = 0; p < 2; p++) {
                topics.send("sub-a", p, utf8("k" + i), utf8(json(i)));
                topics.send("sub-b", p, utf8("k" + i), utf8(json(i)));
            }
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 80);
        List<String> want = new ArrayList<>(expected("sub-a", 2, 5, 25));
        want.addAll(expected("sub-b", 2, 5, 25));
        assertThat(coordinates(rows)).containsExactlyElementsOf(want);
        for (Map<String, Object> r : rows) {
            long i = (Long) r.get("kafka_offset");
            assertThat(r.get("key")).isEqualTo("k" + i);
            assertThat(r.get("value")).isEqualTo(Map.of("id", i, "name", "n" + i));
            assertThat(r.get("record_source")).isEqualTo("stream");
            assertThat((Instant) r.get("stream_record_timestamp")).isBetween(Instant.now().minusSeconds(120),
                    Instant.now());
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            IngestionStatus s = pipeline.status();
            assertThat(s.state()).isEqualTo(IngestionStatus.State.RUNNING);
            assertThat(s.rowsIngested()).isEqualTo(80);
            assertThat(s.decodeFailures()).isZero();
            assertThat(s.lastCommitAt()).isNotNull();
            assertThat(s.partitions()).extracting(ps -> ps.topic() + "/" + ps.partition() + "=" + ps.committedOffset()
                    + " lag " + ps.lag()).containsExactly("sub-a/0=25 lag 0", "sub-a/1=25 lag 0", "sub-b/0=25 lag 0",
                            "sub-b/1=25 lag 0");
        });
    }

    @Test
    void aPatternPicksUpTopicsCreatedLaterFromTheirBeginning() {
        topics.createTopic("pat-1", 1);
        PipelineSpec spec = stream("pattern", new Subscription.Pattern("pat-.*"), new SchemaSource.Plain(),
                topics.endOffsets("pat-1"));
        start(spec, FAST);
        for (int i = 0; i < 10; i++) {
            topics.send("pat-1", 0, null, utf8("v" + i));
        }
        topics.createTopic("pat-2", 2);
        for (int i = 0; i < 10; i++) {
            topics.send("pat-2", i % 2, null, utf8("w" + i));
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 20);
        List<String> want = new ArrayList<>(expected("pat-1", 1, 0, 10));
        want.addAll(expected("pat-2", 2, 0, 5));
        assertThat(coordinates(rows)).containsExactlyElementsOf(want);
        assertThat(rows).allSatisfy(r -> assertThat(r.get("key")).isNull());
    }

    @Test
    void assignPicksUpListedPartitionsAddedLater() {
        topics.createTopic("asg", 1);
        PipelineSpec spec = stream("assign", new Subscription.Assign(Map.of("asg", List.of(0, 1))),
                new SchemaSource.Plain(), topics.endOffsets("asg"));
        start(spec, FAST);
        topics.addPartitions("asg", 3);
        for (int i = 0; i < 6; i++) {
            topics.send("asg", i % 3, null, utf8("v" + i));
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 4);
        assertThat(coordinates(rows)).containsExactly("asg/0/0", "asg/0/1", "asg/1/0", "asg/1/1");
        assertThat(rows).extracting(r -> r.get("value")).containsExactly("v0", "v3", "v1", "v4");
    }

    @Test
    void jsonValuesDecodeAndMalformedOnesAreCountedAndWrittenAsNull() {
        topics.createTopic("fmt-json", 1);
        PipelineSpec spec = stream("json", new Subscription.Topics(List.of("fmt-json")),
                new SchemaSource.JsonSchema(JSON), topics.endOffsets("fmt-json"));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, FAST, registry);
        pipeline.start();
        running.add(pipeline);
        for (int i = 0; i < 20; i++) {
            topics.send("fmt-json", 0, null, utf8(i % 5 == 0 ? "{\"id\":\"not a number\"}" : i % 7 == 0 ? "{oops"
                    : json(i)));
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 20);
        assertThat(coordinates(rows)).containsExactlyElementsOf(expected("fmt-json", 1, 0, 20));
        int malformed = 0;
        for (Map<String, Object> r : rows) {
            long i = (Long) r.get("kafka_offset");
            if (i % 5 == 0 || i % 7 == 0) {
                malformed++;
                assertThat(r.get("value")).isNull();
            } else {
                assertThat(r.get("value")).isEqualTo(Map.of("id", i, "name", "n" + i));
            }
        }
        int failures = malformed;
        await().untilAsserted(() -> assertThat(pipeline.status().decodeFailures()).isEqualTo(failures));
        Tags stream = Tags.of("stream", spec.streamName());
        assertThat(registry.get("tributary.ingest.records").tags(stream).counter().count()).isEqualTo(20);
        assertThat(registry.get("tributary.ingest.decode.failures").tags(stream).counter().count())
                .isEqualTo(failures);
        assertThat(registry.get("tributary.ingest.bytes").tags(stream).counter().count()).isPositive();
        assertThat(registry.get("tributary.ingest.commit.latency").tags(stream).timer().count()).isPositive();
        assertThat(registry.get("tributary.ingest.freshness").tags(stream).timer().count()).isEqualTo(20);
        await().untilAsserted(() -> assertThat(registry.get("tributary.ingest.lag")
                .tags(stream.and("topic", "fmt-json", "partition", "0")).gauge().value()).isZero());
        pipeline.stop();
        running.remove(pipeline);
        assertThat(registry.find("tributary.ingest.records").tags(stream).counter())
                .as("a stopped stream's meters are gone").isNull();
    }

    @Test
    void avroValues() throws Exception {
        topics.createTopic("fmt-avro", 1);
        PipelineSpec spec = stream("avro", new Subscription.Topics(List.of("fmt-avro")), new SchemaSource.Avro(AVRO),
                topics.endOffsets("fmt-avro"));
        start(spec, FAST);
        Schema schema = new Schema.Parser().parse(AVRO);
        GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
        for (int i = 0; i < 10; i++) {
            GenericRecord r = new GenericData.Record(schema);
            r.put("id", (long) i);
            r.put("name", "n" + i);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
            writer.write(r, enc);
            enc.flush();
            topics.send("fmt-avro", 0, null, i == 9 ? new byte[] {(byte) 0xff} : out.toByteArray());
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 10);
        assertThat(coordinates(rows)).containsExactlyElementsOf(expected("fmt-avro", 1, 0, 10));
        for (Map<String, Object> r : rows) {
            long i = (Long) r.get("kafka_offset");
            assertThat(r.get("value")).isEqualTo(i == 9 ? null : Map.of("id", i, "name", "n" + i));
        }
    }

    @Test
    void protobufValues() throws Exception {
        topics.createTopic("fmt-proto", 1);
        PipelineSpec spec = stream("proto", new Subscription.Topics(List.of("fmt-proto")),
                new SchemaSource.Protobuf(PROTO, "ex.Event"), topics.endOffsets("fmt-proto"));
        start(spec, FAST);
        for (int i = 0; i < 10; i++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            out.writeInt64(1, i + 100);
            out.writeString(2, "n" + i);
            out.flush();
            topics.send("fmt-proto", 0, utf8("k" + i), bytes.toByteArray());
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 10);
        assertThat(coordinates(rows)).containsExactlyElementsOf(expected("fmt-proto", 1, 0, 10));
        for (Map<String, Object> r : rows) {
            long i = (Long) r.get("kafka_offset");
            assertThat(r.get("key")).isEqualTo("k" + i);
            assertThat(r.get("value")).isEqualTo(Map.of("id", i + 100, "name", "n" + i));
        }
    }

    @Test
    void plainStringsAndTheExactTableSchema() {
        topics.createTopic("fmt-plain", 1);
        PipelineSpec spec = stream("plain", new Subscription.Topics(List.of("fmt-plain")), new SchemaSource.Plain(),
                topics.endOffsets("fmt-plain"));
        start(spec, FAST);
        for (int i = 0; i < 10; i++) {
            topics.send("fmt-plain", 0, utf8("k" + i), utf8("héllo " + i));
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 10);
        assertThat(rows).extracting(r -> r.get("key") + "=" + r.get("value"))
                .containsExactly("k0=héllo 0", "k1=héllo 1", "k2=héllo 2", "k3=héllo 3", "k4=héllo 4", "k5=héllo 5",
                        "k6=héllo 6", "k7=héllo 7", "k8=héllo 8", "k9=héllo 9");
        assertThat(tables.columns(spec.tableLocation())).extracting(c -> c.name() + " " + c.type()).containsExactly(
                "key string", "value string", "stream_record_timestamp timestamp", "record_source string",
                "kafka_topic string", "kafka_partition int", "kafka_offset bigint");
    }

    @Test
    void noWriteLandsAfterStopReturns() throws Exception {
        topics.createTopic("stop", 2);
        PipelineSpec spec = stream("stop", new Subscription.Topics(List.of("stop")), new SchemaSource.Plain(),
                topics.endOffsets("stop"));
        StreamPipeline pipeline = start(spec, new PipelineSettings(Duration.ofMillis(100), 500, 64L << 20,
                Duration.ofSeconds(1)));
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(() -> {
            for (int i = 0; producing.get(); i++) {
                topics.send("stop", i % 2, null, utf8("v" + i));
                if (i % 200 == 0) {
                    topics.flush();
                }
            }
        });
        producer.start();
        awaitRows(spec, 1000);
        pipeline.stop();
        running.remove(pipeline);
        long version = tables.open(spec.tableLocation()).status().version();
        // Records keep arriving, and for two seconds not one commit of the stopped pipeline lands.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                .until(() -> tables.open(spec.tableLocation()).status().version() == version);
        producing.set(false);
        producer.join();
        assertThat(tables.open(spec.tableLocation()).status().version()).isEqualTo(version);
        List<Map<String, Object>> rows = KafkaTestSupport.rows(tables, spec.tableLocation());
        Map<PartitionKey, Long> positions = tables.open(spec.tableLocation()).positions();
        List<String> want = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            for (long o = 0; o < positions.get(new PartitionKey("stop", p)); o++) {
                want.add("stop/" + p + "/" + o);
            }
        }
        assertThat(coordinates(rows)).containsExactlyElementsOf(want);
    }

    @Test
    void twoConsumersInOneGroupWithARebalanceInTheMiddle() throws Exception {
        topics.createTopic("group", 4);
        PipelineSpec spec = stream("group", new Subscription.Topics(List.of("group")), new SchemaSource.Plain(),
                topics.endOffsets("group"));
        PipelineSettings settings = new PipelineSettings(Duration.ofMillis(200), 300, 64L << 20,
                Duration.ofSeconds(1));
        KafkaStreamFixture.RecordingConsumers consumers = new KafkaStreamFixture.RecordingConsumers();
        StreamPipeline first = start(spec, settings, consumers);
        int perPartition = 0;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 500; i++) {
                topics.send("group", i % 4, null, utf8("v"));
            }
            topics.flush();
            perPartition += 125;
            int written = 4 * perPartition;
            await().atMost(Duration.ofSeconds(60)).until(() -> KafkaTestSupport.rows(tables, spec.tableLocation()).size() >= written);
            if (round == 0) {
                // The first consumer holds all four partitions until the second joins the group.
                await().atMost(Duration.ofSeconds(30)).until(() -> consumers.holding.get(0).size() == 4);
                start(spec, settings, consumers);
                // A rebalance: the group takes partitions from the first consumer and gives them to the second.
                await().atMost(Duration.ofSeconds(60)).until(() -> consumers.holding.size() == 2
                        && !consumers.holding.get(1).isEmpty() && consumers.holding.get(0).size() < 4);
                assertThat(consumers.revoked).isNotEmpty();
            } else if (round == 1) {
                first.stop();
                running.remove(first);
                // The second consumer takes over what the first held.
                await().atMost(Duration.ofSeconds(60)).until(() -> consumers.holding.get(1).size() == 4);
            }
        }
        List<Map<String, Object>> rows = awaitRows(spec, 4 * perPartition);
        assertThat(coordinates(rows)).containsExactlyElementsOf(expected4(perPartition));
    }

    private static List<String> expected4(int perPartition) {
        List<String> out = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            for (int o = 0; o < perPartition; o++) {
                out.add("group/" + p + "/" + o);
            }
        }
        return out;
    }
}
