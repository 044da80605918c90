package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tributary.delta.IndependentReader;
import io.tributary.delta.Tables;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.RescuedRecords;
import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.Subscription;
import io.tributary.schema.RegistryAccess;
import io.tributary.schema.RegistryFormat;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.testing.ApicurioRegistry;
import io.tributary.testing.ConfluentWire;
import io.tributary.testing.KafkaTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rescued records end to end (SPEC "Rescued records") on the server's pipeline with a real broker and a real Apicurio
 * registry: records that do not decode land with their raw bytes and error in {@code _rescued_data} (read back with
 * Kernel's stock engine), stay after a restart, are not rescued twice when redelivered, and a replay after the
 * registry's schema was fixed fills their values in and changes nothing else.
 */
class RescuePipelineTest {
    /** The subject's first version: {@code note} has no default, so a writer without it cannot be resolved. */
    static final String V1 = """
            {"type":"record","name":"Tx","namespace":"ex","fields":[
              {"name":"id","type":"long"},{"name":"note","type":"string"}]}""";
    /** The fix: the same column, {@code note} with a default, so old writers resolve. */
    static final String V2 = """
            {"type":"record","name":"Tx","namespace":"ex","fields":[
              {"name":"id","type":"long"},{"name":"note","type":"string","default":"none"}]}""";
    /** What a misconfigured producer wrote with (registered under its own subject). */
    static final String WRITER = """
            {"type":"record","name":"Tx","namespace":"ex","fields":[{"name":"id","type":"long"}]}""";

    @TempDir
    static java.nio.file.Path dir;
    static EmbeddedKafka kafka;
    static KafkaTestSupport topics;
    static ApicurioRegistry registry;

    @BeforeAll
    static void start() {
        assumeTrue(ApicurioRegistry.unavailableReason().isEmpty(), () -> ApicurioRegistry.unavailableReason().get());
        registry = ApicurioRegistry.start(dir.resolve("registry"));
        kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, Map.of());
        topics = new KafkaTestSupport(kafka.bootstrapServers());
    }

    @AfterAll
    static void stop() {
        if (topics != null) {
            topics.close();
            kafka.close();
        }
        if (registry != null) {
            registry.close();
        }
    }

    @Test
    void undecodableRecordsAreRescuedOnceSurviveARestartAndAReplayAfterTheFixFillsThemIn() {
        Tables tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
        int v1 = register("rx-value", "AVRO", V1);
        int writer = register("rx-writer-value", "AVRO", WRITER);
        topics.createTopic("rx", 1);
        SchemaSource value = new SchemaSource.Registry("rx-value", RegistryFormat.FORMAT_AVRO,
                new RegistryAccess(registry.url(), null, null));
        PipelineSpec spec = KafkaStreamFixture.createRescuing(tables, "rx", new Subscription.Topics(List.of("rx")),
                new SchemaSource.Plain(), value, topics.endOffsets("rx"),
                Map.of("bootstrap.servers", kafka.bootstrapServers()));
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, KafkaStreamFixture.FAST);
        pipeline.start();

        // offsets 0..9: good records, except 3 and 7 (a writer the subject cannot resolve) and 5 (not framed at all)
        List<byte[]> sent = new ArrayList<>();
        for (long i = 0; i < 10; i++) {
            byte[] bytes = i == 3 || i == 7 ? ConfluentWire.avro(writer, record(WRITER, i, null))
                    : i == 5 ? "garbage".getBytes(StandardCharsets.UTF_8)
                    : ConfluentWire.avro(v1, record(V1, i, "n" + i));
            sent.add(bytes);
            topics.send("rx", 0, ("k" + i).getBytes(StandardCharsets.UTF_8), bytes);
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 10);

        assertThat(tables.columns(spec.tableLocation())).extracting(c -> c.name() + " " + c.type()).last()
                .isEqualTo("_rescued_data struct<key:binary,value:binary,error:string,side:string>");
        for (Map<String, Object> r : rows) {
            long i = (Long) r.get("kafka_offset");
            if (i == 3 || i == 5 || i == 7) {
                assertThat(r.get("value")).as("offset %d", i).isNull();
                Map<?, ?> rescued = (Map<?, ?>) r.get("_rescued_data");
                assertThat(rescued).as("offset %d", i).isNotNull();
                assertThat(rescued.get("value")).isEqualTo(hex(sent.get((int) i)));
                assertThat(rescued.get("key")).isEqualTo(hex(("k" + i).getBytes(StandardCharsets.UTF_8)));
                assertThat(rescued.get("side")).isEqualTo("value");
                assertThat((String) rescued.get("error")).isNotBlank()
                        .contains(i == 5 ? "no schema-registry framing" : "not an Avro datum");
            } else {
                assertThat(r.get("value")).isEqualTo(Map.of("id", i, "note", "n" + i));
                assertThat(r.get("_rescued_data")).isNull();
            }
        }
        await().untilAsserted(() -> assertThat(pipeline.status().decodeFailures()).isEqualTo(3));

        // Restart: another pipeline on a fresh warehouse handle; what was rescued is read back from the table alone.
        pipeline.stop();
        Tables restartedTables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
        StreamPipeline restarted = KafkaStreamFixture.pipeline(restartedTables, spec, KafkaStreamFixture.FAST);
        restarted.start();
        try {
            byte[] late = ConfluentWire.avro(writer, record(WRITER, 10, null));
            sent.add(late);
            topics.send("rx", 0, "k10".getBytes(StandardCharsets.UTF_8), late);
            topics.flush();
            awaitRows(spec, 11);
            RescuedRecords.Page page = RescuedRecords.page(restartedTables.open(spec.tableLocation()), 50, null);
            assertThat(page.records()).extracting(RescuedRecords.Rescued::offset).containsExactly(3L, 5L, 7L, 10L);
            assertThat(page.records()).allSatisfy(r -> {
                assertThat(r.value()).isEqualTo(sent.get((int) r.offset()));
                assertThat(r.key()).isEqualTo(("k" + r.offset()).getBytes(StandardCharsets.UTF_8));
                assertThat(r.topic()).isEqualTo("rx");
                assertThat(r.timestamp()).isNotNull();
            });
            assertThat(page.next()).isEmpty();
            RescuedRecords.Page first = RescuedRecords.page(restartedTables.open(spec.tableLocation()), 2, null);
            assertThat(first.records()).extracting(RescuedRecords.Rescued::offset).containsExactly(3L, 5L);
            assertThat(RescuedRecords.page(restartedTables.open(spec.tableLocation()), 2, first.next().orElseThrow())
                    .records()).extracting(RescuedRecords.Rescued::offset).containsExactly(7L, 10L);
        } finally {
            restarted.stop();
        }

        // Exactly once: the whole topic delivered again (as a Lambda mapping or a rebalance would) adds nothing.
        long versionBefore = IndependentReader.version(spec.tableLocation());
        OpenedIngester again = OpenedIngester.open(tables, spec);
        assertThat(again.ingester().ingest(readAll("rx"))).isEmpty();
        assertThat(IndependentReader.version(spec.tableLocation())).isEqualTo(versionBefore);
        assertThat(RescuedRecords.count(tables.open(spec.tableLocation()))).isEqualTo(4);

        // The registry's schema is fixed; a replay decodes what it can and changes nothing else.
        List<Map<String, Object>> before = sorted(IndependentReader.rows(spec.tableLocation()));
        Map<String, String> domainsBefore = IndependentReader.domains(spec.tableLocation());
        register("rx-value", "AVRO", V2);
        StreamSchema fixed = StreamSchema.of(SideSchema.compile(spec.keySchema(), "key_schema"),
                SideSchema.compile(spec.valueSchema(), "payload_schema"), true);
        RescuedRecords.Replay replay = RescuedRecords.replay(tables.open(spec.tableLocation()), fixed,
                io.tributary.delta.WriteGuard.NONE);
        assertThat(replay.replayed()).isEqualTo(3);
        assertThat(replay.stillUndecodable()).isEqualTo(1);
        assertThat(replay.tableVersion()).isEqualTo(versionBefore + 1);
        assertThat(IndependentReader.version(spec.tableLocation())).isEqualTo(versionBefore + 1);

        List<Map<String, Object>> after = sorted(IndependentReader.rows(spec.tableLocation()));
        assertThat(after).hasSameSizeAs(before).hasSize(11);
        for (int i = 0; i < after.size(); i++) {
            long offset = (Long) after.get(i).get("kafka_offset");
            if (offset == 3 || offset == 7 || offset == 10) {
                Map<String, Object> expected = new java.util.LinkedHashMap<>(before.get(i));
                expected.put("value", Map.of("id", offset, "note", "none"));
                expected.put("_rescued_data", null);
                assertThat(after.get(i)).as("offset %d", offset).isEqualTo(expected);
            } else {
                assertThat(after.get(i)).as("offset %d", offset).isEqualTo(before.get(i));
            }
        }
        assertThat(IndependentReader.domains(spec.tableLocation())).isEqualTo(domainsBefore);
        assertThat(RescuedRecords.page(tables.open(spec.tableLocation()), 50, null).records())
                .extracting(RescuedRecords.Rescued::offset).containsExactly(5L);
        // Nothing is left to replay: a second replay commits nothing.
        RescuedRecords.Replay second = RescuedRecords.replay(tables.open(spec.tableLocation()), fixed,
                io.tributary.delta.WriteGuard.NONE);
        assertThat(second.replayed()).isZero();
        assertThat(second.stillUndecodable()).isEqualTo(1);
        assertThat(IndependentReader.version(spec.tableLocation())).isEqualTo(versionBefore + 1);
    }

    /**
     * Registers a schema, once more after an I/O failure: under load the JDK client's HTTP/2 upgrade to the
     * registry has been seen to end in GOAWAY before any answer, with nothing registered.
     */
    private static int register(String subject, String type, String schema) {
        try {
            return ConfluentWire.register(registry.url(), subject, type, schema);
        } catch (java.io.UncheckedIOException e) {
            return ConfluentWire.register(registry.url(), subject, type, schema);
        }
    }

    private static GenericRecord record(String schemaText, long id, String note) {
        Schema schema = ConfluentWire.parse(schemaText);
        GenericRecord r = new GenericData.Record(schema);
        r.put("id", id);
        if (schema.getField("note") != null) {
            r.put("note", note);
        }
        return r;
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    private static List<Map<String, Object>> sorted(List<Map<String, Object>> rows) {
        List<Map<String, Object>> out = new ArrayList<>(rows);
        out.sort(Comparator.comparing(r -> (Long) r.get("kafka_offset")));
        return out;
    }

    private static List<Map<String, Object>> awaitRows(PipelineSpec spec, int count) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> IndependentReader.rows(spec.tableLocation()).size() >= count);
        return sorted(IndependentReader.rows(spec.tableLocation()));
    }

    private static MicroBatch readAll(String topic) {
        MicroBatch.Builder batch = MicroBatch.builder();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers",
                kafka.bootstrapServers()), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            while (consumer.position(tp) < end) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    batch.add(new SourceRecord(r.topic(), r.partition(), r.offset(), r.timestamp(), r.key(), r.value()));
                }
            }
        }
        return batch.build();
    }
}
