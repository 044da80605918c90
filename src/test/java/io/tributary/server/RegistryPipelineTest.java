package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.CodedOutputStream;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.schema.RegistryAccess;
import io.tributary.schema.RegistryFormat;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import io.tributary.testing.ApicurioRegistry;
import io.tributary.testing.ConfluentWire;
import io.tributary.testing.KafkaTestSupport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Registry streams end to end against a real Apicurio Registry (Confluent API) and a real broker, messages framed as
 * Confluent's serializers frame them, every table read back with Kernel's scan by a fresh reader.
 */
class RegistryPipelineTest {
    static final String V1 = """
            {"type":"record","name":"Tx","namespace":"ex","fields":[
              {"name":"id","type":"long"},{"name":"name","type":"string"}]}""";
    static final String V2 = """
            {"type":"record","name":"Tx","namespace":"ex","fields":[
              {"name":"id","type":"long"},{"name":"name","type":"string"},
              {"name":"note","type":["null","string"],"default":null}]}""";
    static final String V3 = """
            {"type":"record","name":"Tx","namespace":"ex","fields":[
              {"name":"id","type":"long"},{"name":"name","type":"string"},
              {"name":"note","type":["null","string"],"default":null},
              {"name":"channel","type":["null","string"],"default":null}]}""";

    static final String V4 = """
            {"type":"record","name":"Tx","namespace":"ex","fields":[
              {"name":"id","type":"long"},{"name":"name","type":"string"},
              {"name":"channel","type":["null","string"],"default":null}]}""";

    @TempDir
    static Path dir;
    static EmbeddedKafka kafka;
    static KafkaTestSupport topics;
    static ApicurioRegistry registry;
    final List<StreamPipeline> running = new ArrayList<>();

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

    @AfterEach
    void stopPipelines() {
        running.forEach(StreamPipeline::stop);
    }

    @Test
    void avroEvolvesMidStreamAndWaitsOutARegistryOutage() {
        Tables tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
        int v1 = ConfluentWire.register(registry.url(), "tx-value", "AVRO", V1);
        topics.createTopic("tx", 1);
        PipelineSpec spec = KafkaStreamFixture.create(tables, "tx", new Subscription.Topics(List.of("tx")),
                new SchemaSource.Plain(), new SchemaSource.Registry("tx-value", RegistryFormat.FORMAT_AVRO, access()),
                topics.endOffsets("tx"), Map.of("bootstrap.servers", kafka.bootstrapServers()));
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, KafkaStreamFixture.FAST);
        pipeline.start();
        running.add(pipeline);

        for (long i = 0; i < 3; i++) {
            send("tx", ConfluentWire.avro(v1, tx(V1, i, null, null)));
        }
        awaitRows(spec, 3);
        assertThat(columnType(spec)).isEqualTo("struct<id:bigint,name:string>");

        // A compatible version adds an optional field while the stream runs: no restart, the column appears.
        int v2 = ConfluentWire.register(registry.url(), "tx-value", "AVRO", V2);
        for (long i = 3; i < 6; i++) {
            send("tx", ConfluentWire.avro(v2, tx(V2, i, "note-" + i, null)));
        }
        send("tx", ConfluentWire.avro(v1, tx(V1, 6, null, null)));
        List<Map<String, Object>> rows = awaitRows(spec, 7);
        assertThat(columnType(spec)).isEqualTo("struct<id:bigint,name:string,note:string>");
        assertThat(rows).extracting(r -> r.get("value")).containsExactly(
                value(0, null, null, false), value(1, null, null, false), value(2, null, null, false),
                value(3, "note-3", null, false), value(4, "note-4", null, false), value(5, "note-5", null, false),
                value(6, null, null, false));

        // The registry goes away before any message of version 3 was decoded: nothing may land as NULL.
        int v3 = ConfluentWire.register(registry.url(), "tx-value", "AVRO", V3);
        registry.stop();
        send("tx", ConfluentWire.avro(v3, tx(V3, 7, "note-7", "web")));
        send("tx", ConfluentWire.avro(v3, tx(V3, 8, null, "app")));
        await().atMost(Duration.ofSeconds(60)).until(() -> pipeline.status().state() == IngestionStatus.State.FAILED);
        assertThat(pipeline.status().stateMessage()).contains("schema registry").contains("unreachable");
        assertThat(readRows(spec)).hasSize(7);

        registry.restart();
        rows = awaitRows(spec, 9);
        await().atMost(Duration.ofSeconds(30)).until(() -> pipeline.status().state() == IngestionStatus.State.RUNNING);
        assertThat(columnType(spec)).isEqualTo("struct<id:bigint,name:string,note:string,channel:string>");
        assertThat(rows).hasSize(9);
        assertThat(rows.subList(7, 9)).extracting(r -> r.get("value")).containsExactly(
                value(7, "note-7", "web", true), value(8, null, "app", true));
        assertThat(rows.get(0).get("value")).isEqualTo(value(0, null, null, true));
        assertThat(pipeline.status().decodeFailures()).isZero();

        // A later version removes a field; after a restart the latest version no longer covers the table, so the
        // pipeline writes with the newest earlier version that does: the column stays and reads NULL.
        int v4 = ConfluentWire.register(registry.url(), "tx-value", "AVRO", V4);
        pipeline.stop();
        running.remove(pipeline);
        StreamPipeline restarted = KafkaStreamFixture.pipeline(tables, spec, KafkaStreamFixture.FAST);
        restarted.start();
        running.add(restarted);
        send("tx", ConfluentWire.avro(v4, tx(V4, 9, null, "pos")));
        rows = awaitRows(spec, 10);
        assertThat(columnType(spec)).isEqualTo("struct<id:bigint,name:string,note:string,channel:string>");
        assertThat(rows.get(9).get("value")).isEqualTo(value(9, null, "pos", true));
        assertThat(restarted.status().state()).isEqualTo(IngestionStatus.State.RUNNING);
    }

    /**
     * Another server's pipeline met a new registry version first and widened the table: this one's next batch, written
     * with the version it knows (its files lack the new column, which readers fill with NULL), commits on top of the
     * wider table without the stream ever being FAILED, and the table keeps the new column.
     */
    @Test
    void aTableWidenedByAnotherWriterIsFollowedWithoutFailingTheStream() {
        Tables tables = Tables.forWarehouse(dir.resolve("warehouse-widened").toString(), Optional.empty());
        int v1 = ConfluentWire.register(registry.url(), "wd-value", "AVRO", V1);
        topics.createTopic("wd", 1);
        SchemaSource valueSource = new SchemaSource.Registry("wd-value", RegistryFormat.FORMAT_AVRO, access());
        PipelineSpec spec = KafkaStreamFixture.create(tables, "wd", new Subscription.Topics(List.of("wd")),
                new SchemaSource.Plain(), valueSource, topics.endOffsets("wd"),
                Map.of("bootstrap.servers", kafka.bootstrapServers()));
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, KafkaStreamFixture.FAST);
        pipeline.start();
        running.add(pipeline);
        send("wd", ConfluentWire.avro(v1, tx(V1, 0, null, null)));
        awaitRows(spec, 1);

        // The other server: v2 registered, its pipeline widened the table; this pipeline has seen no v2 message.
        ConfluentWire.register(registry.url(), "wd-value", "AVRO", V2);
        StreamSchema v2 = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "schema_config.key_schema"),
                SideSchema.compile(valueSource, "schema_config.payload_schema"));
        tables.open(spec.tableLocation()).evolveSchema(v2.rowSchema());

        send("wd", ConfluentWire.avro(v1, tx(V1, 1, null, null)));
        List<IngestionStatus.State> seen = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5)).until(() -> {
            seen.add(pipeline.status().state());
            return pipeline.status().rowsIngested() >= 2;
        });
        List<Map<String, Object>> rows = awaitRows(spec, 2);
        assertThat(rows).extracting(r -> r.get("value")).containsExactly(value(0, null, null, false),
                value(1, null, null, false));
        assertThat(columnType(spec)).isEqualTo("struct<id:bigint,name:string,note:string>");
        assertThat(seen).as("states while the batch met the wider table").doesNotContain(IngestionStatus.State.FAILED);
    }

    @Test
    void protobufStreamDecodesByDescriptorAndGainsNewFields() throws IOException {
        Tables tables = Tables.forWarehouse(dir.resolve("warehouse-proto").toString(), Optional.empty());
        String p1 = "syntax = \"proto3\";\npackage ex;\nmessage Event {\n  int64 id = 1;\n  string name = 2;\n}\n";
        String p2 = "syntax = \"proto3\";\npackage ex;\nmessage Event {\n  int64 id = 1;\n  string name = 2;\n"
                + "  string note = 3;\n}\nmessage Other {\n  string x = 1;\n}\n";
        int id1 = ConfluentWire.register(registry.url(), "ev-value", "PROTOBUF", p1);
        topics.createTopic("ev", 1);
        PipelineSpec spec = KafkaStreamFixture.create(tables, "ev", new Subscription.Topics(List.of("ev")),
                new SchemaSource.Plain(), new SchemaSource.Registry("ev-value", RegistryFormat.FORMAT_PROTOBUF,
                        access()), topics.endOffsets("ev"), Map.of("bootstrap.servers", kafka.bootstrapServers()));
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, KafkaStreamFixture.FAST);
        pipeline.start();
        running.add(pipeline);

        send("ev", ConfluentWire.protobufFirstMessage(id1, event(1, "a", null)));
        awaitRows(spec, 1);
        int id2 = ConfluentWire.register(registry.url(), "ev-value", "PROTOBUF", p2);
        send("ev", ConfluentWire.protobufFirstMessage(id2, event(2, "b", "hi")));
        send("ev", ConfluentWire.protobufFirstMessage(id1, event(3, "c", null)));
        send("ev", "not framed".getBytes(StandardCharsets.UTF_8));
        List<Map<String, Object>> rows = awaitRows(spec, 4);

        assertThat(columnType(spec)).isEqualTo("struct<id:bigint,name:string,note:string>");
        assertThat(rows).extracting(r -> r.get("value")).containsExactly(
                map("id", 1L, "name", "a", "note", null), map("id", 2L, "name", "b", "note", "hi"),
                map("id", 3L, "name", "c", "note", null), null);
        // The status counts a commit's decode failures right after the commit, which the rows above may see first.
        await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.status().decodeFailures() == 1);
    }

    private static RegistryAccess access() {
        return new RegistryAccess(registry.url(), null, null);
    }

    private static void send(String topic, byte[] value) {
        topics.send(topic, 0, null, value);
        topics.flush();
    }

    private static GenericRecord tx(String schemaText, long id, String note, String channel) {
        Schema schema = ConfluentWire.parse(schemaText);
        GenericRecord r = new GenericData.Record(schema);
        r.put("id", id);
        r.put("name", "n" + id);
        if (schema.getField("note") != null) {
            r.put("note", note);
        }
        if (schema.getField("channel") != null) {
            r.put("channel", channel);
        }
        return r;
    }

    private static byte[] event(long id, String name, String note) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodedOutputStream coded = CodedOutputStream.newInstance(out);
        coded.writeInt64(1, id);
        coded.writeString(2, name);
        if (note != null) {
            coded.writeString(3, note);
        }
        coded.flush();
        return out.toByteArray();
    }

    private static Map<String, Object> value(long id, String note, String channel, boolean withChannel) {
        Map<String, Object> m = map("id", id, "name", "n" + id, "note", note);
        if (withChannel) {
            m.put("channel", channel);
        }
        return m;
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    /** A reader that shares nothing with the pipeline's tables instance. */
    private static List<Map<String, Object>> readRows(PipelineSpec spec) {
        return KafkaTestSupport.rows(Tables.forWarehouse(dir.toString(), Optional.empty()), spec.tableLocation());
    }

    private static String columnType(PipelineSpec spec) {
        return Tables.forWarehouse(dir.toString(), Optional.empty()).columns(spec.tableLocation()).get(1).type();
    }

    private static List<Map<String, Object>> awaitRows(PipelineSpec spec, int count) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                .until(() -> readRows(spec).size() >= count);
        return readRows(spec);
    }
}
