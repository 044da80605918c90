package io.tributary.server;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tributary.online.SyncHooks;
import io.tributary.online.SyncSpec;
import io.tributary.registry.online.OnlineDatabase;
import io.tributary.testing.KafkaTestSupport;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Synced tables on the all-in-one server: a real broker, pipelines and PostgreSQL, driven through the API. */
@Tag("quarkus")
@QuarkusTest
class SyncedTablesServerTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final String SYNCED = "/api/2.0/database/synced_tables";
    static final Duration WAIT = Duration.ofSeconds(60);

    @Inject
    DataSource database;
    @Inject
    OnlineDatabase online;
    @Inject
    io.tributary.registry.online.SyncRunner runner;
    @Inject
    io.tributary.registry.online.SyncedTableStore registry;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @AfterEach
    void noHooks() {
        online.hooks(null);
    }

    /** A stream of {"id", "amount"} records with its topic; returns the stream's name. */
    private String stream(KafkaTestSupport topics, String topic) {
        String connection = unique("kafka");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        topics.createTopic(topic, 2);
        String name = "main." + unique("s") + ".orders";
        as(ALICE).body(valid(name, connection, topic).toString()).post(STREAMS).then().statusCode(200);
        return name;
    }

    private static void send(KafkaTestSupport topics, String topic, String id, double amount) {
        String value = id == null ? "{\"amount\": " + amount + "}" : "{\"id\": \"" + id + "\", \"amount\": " + amount
                + "}";
        topics.send(topic, Math.abs(String.valueOf(id).hashCode()) % 2, null, value.getBytes(StandardCharsets.UTF_8));
    }

    private static String create(String token, String name, String source, String policy) {
        return "{\"name\": \"" + name + "\", \"spec\": {\"source_table_full_name\": \"" + source + "_ingestion\", "
                + "\"primary_key_columns\": [\"value.id\"], \"timeseries_key\": \"stream_record_timestamp\", "
                + "\"scheduling_policy\": \"" + policy + "\"}}";
    }

    /** Reads the PostgreSQL table directly, as an application would (README). */
    private Map<String, Double> pgRows(String syncedName) throws Exception {
        Map<String, Double> out = new TreeMap<>();
        String table = "tributary_online.\"" + syncedName.replace(".", "__") + "\"";
        try (Connection c = database.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT value_id, value_amount FROM " + table);
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getDouble(2));
            }
        }
        return out;
    }

    private static JsonPath status(String token, String name) {
        return as(token).get(SYNCED + "/" + name).then().statusCode(200).extract().jsonPath();
    }

    @Test
    void continuousFollowsEveryCommitWithTheLatestValuePerKeyAndServesLookups() throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            String topic = unique("orders");
            String stream = stream(topics, topic);
            String synced = stream + "_online";
            JsonPath created = as(ALICE).body(create(ALICE, synced, stream, "CONTINUOUS")).post(SYNCED).then()
                    .statusCode(200).extract().jsonPath();
            assertThat(created.getString("postgres_table")).isEqualTo("tributary_online."
                    + synced.replace(".", "__"));
            // The same keys updated many times, over several micro-batches; one record without a key.
            for (int round = 0; round < 5; round++) {
                for (int k = 0; k < 10; k++) {
                    send(topics, topic, "u" + k, round * 100 + k);
                }
                topics.flush();
                Thread.sleep(300);
            }
            send(topics, topic, null, 1);
            topics.flush();
            Map<String, Double> expected = new TreeMap<>();
            for (int k = 0; k < 10; k++) {
                expected.put("u" + k, 400.0 + k);
            }
            await().atMost(WAIT).untilAsserted(() -> assertThat(pgRows(synced)).isEqualTo(expected));
            await().atMost(WAIT).untilAsserted(() -> {
                JsonPath s = status(ALICE, synced);
                assertThat(s.getString("data_synchronization_status.state")).isEqualTo("ONLINE");
                assertThat(s.getLong("data_synchronization_status.rows")).isEqualTo(10);
                assertThat(s.getLong("data_synchronization_status.null_keys_skipped")).isEqualTo(1);
                assertThat(s.getLong("data_synchronization_status.last_synced_version")).isPositive();
                assertThat(s.getLong("data_synchronization_status.delay_ms")).isNotNegative();
            });

            JsonPath found = as(ALICE).body("{\"keys\": [{\"value_id\": \"u3\"}, {\"value_id\": \"nope\"}, "
                    + "{\"value_id\": null}, {\"value_id\": \"u7\"}]}").post(SYNCED + "/" + synced + "/lookup").then()
                    .statusCode(200).extract().jsonPath();
            List<Map<String, Object>> rows = found.getList("rows");
            assertThat(rows).hasSize(4);
            assertThat(rows.get(0)).containsEntry("value_id", "u3").containsEntry("value_amount", 403.0f)
                    .containsKey("stream_record_timestamp").containsEntry("record_source", "stream");
            assertThat(rows.get(1)).isNull();
            assertThat(rows.get(2)).isNull();
            assertThat(rows.get(3)).containsEntry("value_id", "u7");

            // Bad lookups are 400s naming the field.
            as(ALICE).body("{\"keys\": []}").post(SYNCED + "/" + synced + "/lookup").then().statusCode(400)
                    .body("message", org.hamcrest.Matchers.containsString("keys"));
            as(ALICE).body("{\"keys\": [{\"value_nope\": \"x\"}]}").post(SYNCED + "/" + synced + "/lookup").then()
                    .statusCode(400).body("message", org.hamcrest.Matchers.containsString("keys[0].value_nope"));
            as(ALICE).body("{\"keys\": [{\"value_id\": 5}]}").post(SYNCED + "/" + synced + "/lookup").then()
                    .statusCode(400).body("message", org.hamcrest.Matchers.containsString("keys[0].value_id"));
            StringBuilder many = new StringBuilder("{\"keys\": [");
            for (int i = 0; i < 1001; i++) {
                many.append(i == 0 ? "" : ",").append("{\"value_id\": \"k").append(i).append("\"}");
            }
            as(ALICE).body(many.append("]}").toString()).post(SYNCED + "/" + synced + "/lookup").then()
                    .statusCode(400).body("message", org.hamcrest.Matchers.containsString("1 to 1000"));

            // Deleting the source stream stops the synced table; its rows stay readable.
            as(ALICE).delete(STREAMS + "/" + stream).then().statusCode(200);
            await().atMost(WAIT).untilAsserted(() -> assertThat(status(ROOT_TOKEN, synced)
                    .getString("data_synchronization_status.state")).isEqualTo("STOPPED"));
            assertThat(status(ROOT_TOKEN, synced).getString("data_synchronization_status.message"))
                    .contains("source stream").contains("was deleted");
            assertThat(pgRows(synced)).isEqualTo(expected);

            // Deleting the synced table drops its PostgreSQL table.
            as(ROOT_TOKEN).delete(SYNCED + "/" + synced).then().statusCode(200);
            as(ROOT_TOKEN).get(SYNCED + "/" + synced).then().statusCode(404);
            assertThat(tableExists(synced)).isFalse();
        }
    }

    static final String ROOT_TOKEN = io.tributary.testing.Api.ROOT;

    private boolean tableExists(String synced) throws Exception {
        try (Connection c = database.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT to_regclass(?)")) {
            s.setString(1, "tributary_online.\"" + synced.replace(".", "__") + "\"");
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getString(1) != null;
            }
        }
    }

    /**
     * Pushes to a stream without Kafka are followed like a pipeline's commits, right after each (the catch-up runs
     * once an hour in the tests, so only the after-commit sync can bring the rows in time).
     */
    @Test
    void continuousFollowsTheCommitsOfPushesToADirectStream() throws Exception {
        String stream = "main." + unique("d") + ".orders";
        as(ALICE).body("{\"name\": \"" + stream + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + "\"{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"id\\\":{\\\"type\\\":\\\"string\\\"},"
                + "\\\"amount\\\":{\\\"type\\\":\\\"number\\\"}}}\"}}}, \"ingestion_config\": "
                + "{\"ingestion_destination\": {\"delta_table_name\": \"" + stream + "_ingestion\"}}}")
                .post(STREAMS).then().statusCode(200);
        String synced = stream + "_online";
        as(ALICE).body(create(ALICE, synced, stream, "CONTINUOUS")).post(SYNCED).then().statusCode(200);
        await().atMost(WAIT).untilAsserted(() -> assertThat(
                status(ALICE, synced).getString("data_synchronization_status.state")).isEqualTo("ONLINE"));
        Map<String, Double> expected = new TreeMap<>();
        for (int sequence = 0; sequence < 3; sequence++) {
            StringBuilder records = new StringBuilder();
            for (int k = 0; k < 5; k++) {
                records.append(k == 0 ? "" : ", ").append("{\"key\": \"u").append(k).append("\", \"value\": "
                        + "{\"id\": \"u").append(k).append("\", \"amount\": ").append(sequence * 10 + k).append("}}");
                expected.put("u" + k, (double) (sequence * 10 + k));
            }
            as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": " + sequence + ", \"records\": [" + records
                    + "]}").post(STREAMS + "/" + stream + "/records").then().statusCode(200);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(pgRows(synced)).isEqualTo(expected));
    }

    /**
     * A source wider than PostgreSQL's 1,600 columns (a stream may have 10,000): a 400 naming the source, not a sync
     * that fails at every commit.
     */
    @Test
    void aSourceWiderThanAPostgresTableIsRefusedAtCreate() {
        String stream = "main." + unique("w") + ".wide";
        StringBuilder properties = new StringBuilder();
        for (int i = 0; i < 1_600; i++) {
            properties.append(i == 0 ? "" : ",").append("\\\"p").append(i)
                    .append("\\\":{\\\"type\\\":\\\"integer\\\"}");
        }
        as(ALICE).body("{\"name\": \"" + stream + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + "\"{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{" + properties + "}}\"}}}, "
                + "\"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + stream
                + "_ingestion\"}}}").post(STREAMS).then().statusCode(200);
        as(ALICE).body("{\"name\": \"" + stream + "_online\", \"spec\": {\"source_table_full_name\": \"" + stream
                + "_ingestion\", \"primary_key_columns\": [\"value.p0\"], \"timeseries_key\": null, "
                + "\"scheduling_policy\": \"TRIGGERED\"}}").post(SYNCED).then().statusCode(400)
                .body("message", org.hamcrest.Matchers.allOf(
                        org.hamcrest.Matchers.startsWith("spec.source_table_full_name"),
                        org.hamcrest.Matchers.containsString("holds at most 1600")));
    }

    /**
     * The owner of a synced table deletes it after its source stream was deleted, as its STOPPED message tells her to
     * (SPEC §9.1: owning it is enough). Before, the delete asked SELECT on the source first, which nobody but an admin
     * holds once the stream is gone: the owner got a 403 and the PostgreSQL table stayed.
     */
    @Test
    void theOwnerDeletesASyncedTableWhoseSourceStreamIsGone() throws Exception {
        String stream = "main." + unique("g") + ".orders";
        as(ALICE).body("{\"name\": \"" + stream + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + "\"{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"id\\\":{\\\"type\\\":\\\"string\\\"},"
                + "\\\"amount\\\":{\\\"type\\\":\\\"number\\\"}}}\"}}}, \"ingestion_config\": "
                + "{\"ingestion_destination\": {\"delta_table_name\": \"" + stream + "_ingestion\"}}}")
                .post(STREAMS).then().statusCode(200);
        String synced = stream + "_online";
        as(ALICE).body(create(ALICE, synced, stream, "CONTINUOUS")).post(SYNCED).then().statusCode(200);
        as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"key\": \"u1\", \"value\": "
                + "{\"id\": \"u1\", \"amount\": 1}}]}").post(STREAMS + "/" + stream + "/records").then()
                .statusCode(200);
        await().atMost(WAIT).untilAsserted(() -> assertThat(pgRows(synced)).hasSize(1));

        as(ALICE).delete(STREAMS + "/" + stream).then().statusCode(200);
        // Until it is deleted its owner reads it (SPEC §9.3: its rows stay readable): the source's owner and grants
        // are gone with the source, so owning the synced table decides. Before, GET was a 403 for its owner.
        await().atMost(WAIT).untilAsserted(() -> as(ALICE).get(SYNCED + "/" + synced).then().statusCode(200)
                .body("data_synchronization_status.state", org.hamcrest.Matchers.equalTo("STOPPED")));
        assertThat(as(ALICE).get(SYNCED).then().statusCode(200).extract().jsonPath()
                .getList("synced_tables.name", String.class)).contains(synced);
        as(ALICE).body("{\"keys\": [{\"value_id\": \"u1\"}]}").post(SYNCED + "/" + synced + "/lookup").then()
                .statusCode(200).body("rows[0].value_id", org.hamcrest.Matchers.equalTo("u1"));
        as(BOB).get(SYNCED + "/" + synced).then().statusCode(403);
        as(ALICE).delete(SYNCED + "/" + synced).then().statusCode(200);
        as(ROOT_TOKEN).get(SYNCED + "/" + synced).then().statusCode(404);
        assertThat(tableExists(synced)).isFalse();
    }

    /**
     * Lookup keys the key column's type cannot hold (an integer beyond bigint, a timestamp of year 10000 or more, which
     * Java's parser takes and PostgreSQL refuses) are 400s naming the key. Before, PostgreSQL's "out of range"
     * answered 500.
     */
    @Test
    void lookupKeysOutsideTheKeyColumnsRangeAre400s() throws Exception {
        String stream = "main." + unique("r") + ".orders";
        as(ALICE).body("{\"name\": \"" + stream + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + "\"{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"n\\\":{\\\"type\\\":\\\"integer\\\"},"
                + "\\\"amount\\\":{\\\"type\\\":\\\"number\\\"}}}\"}}}, \"ingestion_config\": "
                + "{\"ingestion_destination\": {\"delta_table_name\": \"" + stream + "_ingestion\"}}}")
                .post(STREAMS).then().statusCode(200);
        String synced = stream + "_online";
        as(ALICE).body("{\"name\": \"" + synced + "\", \"spec\": {\"source_table_full_name\": \"" + stream
                + "_ingestion\", \"primary_key_columns\": [\"value.n\", \"stream_record_timestamp\"], "
                + "\"scheduling_policy\": \"CONTINUOUS\"}}").post(SYNCED).then().statusCode(200);
        as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"value\": {\"n\": 7, "
                + "\"amount\": 1}, \"timestamp\": \"2026-12-01T10:00:00Z\"}]}").post(STREAMS + "/" + stream
                + "/records").then().statusCode(200);
        String lookup = SYNCED + "/" + synced + "/lookup";
        String key = "{\"keys\": [{\"value_n\": %s, \"stream_record_timestamp\": \"%s\"}]}";
        await().atMost(WAIT).untilAsserted(() -> as(ALICE).body(key.formatted("7", "2026-12-01T10:00:00Z"))
                .post(lookup).then().statusCode(200).body("rows[0].value_amount", org.hamcrest.Matchers.equalTo(1.0f)));
        as(ALICE).body(key.formatted("9223372036854775807", "2026-12-01T10:00:00Z")).post(lookup).then()
                .statusCode(200).body("rows[0]", org.hamcrest.Matchers.nullValue());
        as(ALICE).body(key.formatted("99999999999999999999999", "2026-12-01T10:00:00Z")).post(lookup).then()
                .statusCode(400).body("message", org.hamcrest.Matchers.startsWith("keys[0].value_n"));
        as(ALICE).body(key.formatted("7", "+999999999-12-31T23:59:59Z")).post(lookup).then()
                .statusCode(400).body("message", org.hamcrest.Matchers.startsWith("keys[0].stream_record_timestamp"));
        as(ALICE).body(key.formatted("7", "0000-01-01T00:00:00Z")).post(lookup).then()
                .statusCode(400).body("message", org.hamcrest.Matchers.startsWith("keys[0].stream_record_timestamp"));
    }

    private static String directStream(String name, String properties) {
        as(ALICE).body("{\"name\": \"" + name + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + "\"{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{" + properties.replace("\"", "\\\"") + "}}\"}}}, "
                + "\"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + name
                + "_ingestion\"}}}").post(STREAMS).then().statusCode(200);
        return name;
    }

    /**
     * A synced table deleted and created again under its name over other columns by another server, while this server
     * still remembers the old definition (up to 2 s): a lookup reads the definition again at once and answers for the
     * new table. Before, the old statement met the new table's columns and every lookup was a 500 ("column … does not
     * exist") until the cache expired; found with two packaged servers (/work/notes/stranger-recreate.sh).
     */
    @Test
    void aSyncedTableCreatedAgainElsewhereOverOtherColumnsIsLookedUpWithTheNewDefinition() throws Exception {
        String first = directStream("main." + unique("ra") + ".orders",
                "\"id\":{\"type\":\"string\"},\"amount\":{\"type\":\"number\"}");
        String second = directStream("main." + unique("rb") + ".codes",
                "\"code\":{\"type\":\"integer\"},\"label\":{\"type\":\"string\"}");
        as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"value\": {\"id\": \"a\", "
                + "\"amount\": 1}}]}").post(STREAMS + "/" + first + "/records").then().statusCode(200);
        as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"value\": {\"code\": 1, "
                + "\"label\": \"one\"}}]}").post(STREAMS + "/" + second + "/records").then().statusCode(200);
        String synced = first + "_online";
        as(ALICE).body(create(ALICE, synced, first, "CONTINUOUS")).post(SYNCED).then().statusCode(200);
        String lookup = SYNCED + "/" + synced + "/lookup";
        String oldKey = "{\"keys\": [{\"value_id\": \"a\"}]}";
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> assertThat(pgRows(synced)).hasSize(1));
        // This server remembers the definition after a lookup that never reached PostgreSQL (a key of the wrong type),
        // so no connection has the old statement prepared: the next lookup's statement is parsed against the table
        // as it is then (a prepared one would fail with "cached plan must not change result type" instead).
        as(ALICE).body("{\"keys\": [{\"value_id\": 5}]}").post(lookup).then().statusCode(400);

        // Another server deletes it and creates it again over the second stream, keyed by its code; this server's
        // caches are not told.
        long remembered = System.nanoTime();
        runner.delete(registry.find(synced).orElseThrow());
        io.tributary.registry.online.SyncedTableStore.Source src = registry.source(second + "_ingestion");
        String location = src.registeredLocation() != null ? src.registeredLocation()
                : tables.defaultLocation("main", second.split("\\.")[1], "codes_ingestion");
        io.tributary.registry.online.SyncedTableRow again = new io.tributary.registry.online.SyncedTableRow(synced,
                java.util.UUID.randomUUID().toString(), second + "_ingestion", location,
                src.streamId(), List.of("value.code"), null, io.tributary.online.SyncPolicy.CONTINUOUS,
                synced.replace(".", "__"), "alice", java.time.Instant.now(), null);
        assertThat(registry.insert(again)).isTrue();
        online.store().register(again.spec());
        assertThat(runner.run(again)).isPresent();
        var answer = as(ALICE).body(oldKey).post(lookup).then().extract();
        Duration bound = io.tributary.registry.online.SyncedTableServiceAccess.lookupCache();
        org.junit.jupiter.api.Assumptions.assumeTrue(System.nanoTime() - remembered < bound.toNanos(),
                "the machine took longer than the cache's bound to recreate the table: the window was missed");
        assertThat(answer.statusCode()).as(answer.asString()).isEqualTo(400);
        assertThat(answer.jsonPath().getString("message")).contains("value_id").contains("value_code");
        as(ALICE).body("{\"keys\": [{\"value_code\": 1}]}").post(lookup).then().statusCode(200)
                .body("rows[0].value_label", org.hamcrest.Matchers.equalTo("one"));
    }

    @Test
    void triggeredAndSnapshotSyncOnlyWhenAsked() throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            String topic = unique("orders");
            String stream = stream(topics, topic);
            send(topics, topic, "a", 1);
            topics.flush();
            awaitRowsIngested(stream, 1);
            String triggered = stream + "_trig";
            String snapshot = stream + "_snap";
            as(ALICE).body(create(ALICE, triggered, stream, "TRIGGERED")).post(SYNCED).then().statusCode(200);
            as(ALICE).body(create(ALICE, snapshot, stream, "SNAPSHOT")).post(SYNCED).then().statusCode(200);
            // The first sync runs at create; until it has, the PostgreSQL tables may not exist yet.
            await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
                assertThat(pgRows(triggered)).containsExactly(Map.entry("a", 1.0));
                assertThat(pgRows(snapshot)).containsExactly(Map.entry("a", 1.0));
            });

            send(topics, topic, "a", 2);
            send(topics, topic, "b", 3);
            topics.flush();
            awaitRowsIngested(stream, 3);
            // Nothing follows on its own.
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(pgRows(triggered)).containsExactly(Map.entry("a", 1.0));
                assertThat(pgRows(snapshot)).containsExactly(Map.entry("a", 1.0));
            });
            JsonPath t = as(ALICE).post(SYNCED + "/" + triggered + "/sync").then().statusCode(200).extract()
                    .jsonPath();
            assertThat(t.getLong("data_synchronization_status.rows")).isEqualTo(2);
            as(ALICE).post(SYNCED + "/" + snapshot + "/sync").then().statusCode(200);
            Map<String, Double> expected = Map.of("a", 2.0, "b", 3.0);
            assertThat(pgRows(triggered)).isEqualTo(expected);
            assertThat(pgRows(snapshot)).isEqualTo(expected);
            JsonPath list = as(ALICE).queryParam("catalog_name", "main").get(SYNCED).then().statusCode(200).extract()
                    .jsonPath();
            assertThat(list.getList("synced_tables.name", String.class)).contains(triggered, snapshot);
        }
    }

    @Test
    void aCrashBetweenTheDeltaCommitAndThePostgresTransactionEndsWithExactlyTheRightRows() throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            String topic = unique("orders");
            String stream = stream(topics, topic);
            String synced = stream + "_online";
            as(ALICE).body(create(ALICE, synced, stream, "CONTINUOUS")).post(SYNCED).then().statusCode(200);
            await().atMost(WAIT).untilAsserted(() -> assertThat(status(ALICE, synced)
                    .getString("data_synchronization_status.state")).isEqualTo("ONLINE"));
            // Every sync of this table dies after writing its rows, before its PostgreSQL commit.
            AtomicInteger crashes = new AtomicInteger();
            String id = status(ALICE, synced).getString("id");
            online.hooks(new SyncHooks() {
                @Override
                public void beforeCommit(SyncSpec spec, long from, long to) {
                    if (spec.id().equals(id)) {
                        crashes.incrementAndGet();
                        throw new IllegalStateException("killed after the rows, before the commit");
                    }
                }
            });
            send(topics, topic, "a", 1);
            send(topics, topic, null, 1);
            send(topics, topic, "a", 2);
            send(topics, topic, "b", 5);
            topics.flush();
            awaitRowsIngested(stream, 4);
            await().atMost(WAIT).until(() -> crashes.get() >= 1);
            JsonPath failed = status(ALICE, synced);
            assertThat(failed.getString("data_synchronization_status.state")).isEqualTo("FAILED");
            assertThat(failed.getString("data_synchronization_status.message")).contains("killed");
            assertThat(pgRows(synced)).isEmpty();

            // The next commit's sync reads the crashed syncs' commits again, with its own.
            online.hooks(null);
            send(topics, topic, "c", 7);
            topics.flush();
            await().atMost(WAIT).untilAsserted(() -> assertThat(pgRows(synced))
                    .isEqualTo(Map.of("a", 2.0, "b", 5.0, "c", 7.0)));
            await().atMost(WAIT).untilAsserted(() -> {
                JsonPath s = status(ALICE, synced);
                assertThat(s.getString("data_synchronization_status.state")).isEqualTo("ONLINE");
                // Counted once, although the crashed attempts read the rows too.
                assertThat(s.getLong("data_synchronization_status.rows_synced")).isEqualTo(4);
                assertThat(s.getLong("data_synchronization_status.null_keys_skipped")).isEqualTo(1);
            });
        }
    }

    @Test
    void accessFollowsTheSourceTablesGrantsAndBadRequestsNameTheField() throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            String topic = unique("orders");
            String stream = stream(topics, topic);
            send(topics, topic, "a", 1);
            topics.flush();
            awaitRowsIngested(stream, 1);
            String synced = stream + "_online";
            // Bob may not read the source: he may not create, see or look up its synced table.
            as(BOB).body(create(BOB, synced, stream, "TRIGGERED")).post(SYNCED).then().statusCode(403);
            as(ALICE).body(create(ALICE, synced, stream, "TRIGGERED")).post(SYNCED).then().statusCode(200);
            as(ALICE).body(create(ALICE, synced, stream, "TRIGGERED")).post(SYNCED).then().statusCode(409);
            await().atMost(WAIT).untilAsserted(() -> assertThat(pgRows(synced)).hasSize(1));
            as(BOB).get(SYNCED + "/" + synced).then().statusCode(403);
            as(BOB).body("{\"keys\": [{\"value_id\": \"a\"}]}").post(SYNCED + "/" + synced + "/lookup").then()
                    .statusCode(403);
            assertThat(as(BOB).get(SYNCED).then().statusCode(200).extract().jsonPath()
                    .getList("synced_tables.name", String.class)).doesNotContain(synced);

            as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"SELECT\"]}]}")
                    .patch("/api/2.1/unity-catalog/permissions/table/" + stream + "_ingestion").then().statusCode(200);
            as(BOB).get(SYNCED + "/" + synced).then().statusCode(200);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> as(BOB)
                    .body("{\"keys\": [{\"value_id\": \"a\"}]}").post(SYNCED + "/" + synced + "/lookup").then()
                    .statusCode(200).body("rows[0].value_amount", org.hamcrest.Matchers.equalTo(1.0f)));
            // Reading is not managing: deleting and syncing need MANAGE on the source (or owning the synced table).
            as(BOB).delete(SYNCED + "/" + synced).then().statusCode(403);
            as(BOB).post(SYNCED + "/" + synced + "/sync").then().statusCode(403);

            String bad = "{\"name\": \"main.x.y\", \"spec\": {\"source_table_full_name\": \"" + stream + "_ingestion\", "
                    + "\"primary_key_columns\": %s, \"timeseries_key\": %s, \"scheduling_policy\": %s}}";
            as(ALICE).body(bad.formatted("[\"value.id\"]", "null", "\"SOMETIMES\"")).post(SYNCED).then()
                    .statusCode(400).body("message", org.hamcrest.Matchers.startsWith("spec.scheduling_policy"));
            as(ALICE).body(bad.formatted("[\"value.nope\"]", "null", "\"TRIGGERED\"")).post(SYNCED).then()
                    .statusCode(400).body("message", org.hamcrest.Matchers.startsWith("spec.primary_key_columns"));
            as(ALICE).body(bad.formatted("[]", "null", "\"TRIGGERED\"")).post(SYNCED).then()
                    .statusCode(400).body("message", org.hamcrest.Matchers.startsWith("spec.primary_key_columns"));
            as(ALICE).body(bad.formatted("[\"value.id\"]", "\"value.amountx\"", "\"TRIGGERED\"")).post(SYNCED).then()
                    .statusCode(400).body("message", org.hamcrest.Matchers.startsWith("spec.timeseries_key"));
            as(ALICE).body(bad.formatted("[\"value.id\"]", "null", "\"TRIGGERED\"")
                    .replace(stream + "_ingestion", "main.nope.nope")).post(SYNCED).then().statusCode(404)
                    .body("message", org.hamcrest.Matchers.startsWith("spec.source_table_full_name"));
            as(ALICE).body("{\"name\": \"main.x.y\"}").post(SYNCED).then().statusCode(400)
                    .body("message", org.hamcrest.Matchers.startsWith("spec"));
        }
    }

    /**
     * Lookups remember a caller's access and the table's definition for a while (SPEC §9.1): a revoke made through
     * this server reaches them at once, one made on another server (here: its committed grants row removed behind
     * this server's back) and another server's delete within the stated bound.
     */
    @Test
    void revokesAndDeletesReachLookupsAtOnceHereAndWithinTheBoundFromAnotherServer() throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            String topic = unique("orders");
            String stream = stream(topics, topic);
            send(topics, topic, "a", 1);
            topics.flush();
            awaitRowsIngested(stream, 1);
            String synced = stream + "_online";
            String lookup = SYNCED + "/" + synced + "/lookup";
            String key = "{\"keys\": [{\"value_id\": \"a\"}]}";
            String grants = "/api/2.1/unity-catalog/permissions/table/" + stream + "_ingestion";
            as(ALICE).body(create(ALICE, synced, stream, "CONTINUOUS")).post(SYNCED).then().statusCode(200);
            await().atMost(WAIT).untilAsserted(() -> assertThat(pgRows(synced)).hasSize(1));

            as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"SELECT\"]}]}").patch(grants).then()
                    .statusCode(200);
            as(BOB).body(key).post(lookup).then().statusCode(200);
            // Revoked here: the very next lookup is refused (the 2 s cache would still say yes).
            as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"remove\": [\"SELECT\"]}]}").patch(grants)
                    .then().statusCode(200);
            as(BOB).body(key).post(lookup).then().statusCode(403);
            // Granted again here: at once too (the refusal is not remembered past the change).
            as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"SELECT\"]}]}").patch(grants).then()
                    .statusCode(200);
            as(BOB).body(key).post(lookup).then().statusCode(200);

            // Revoked on another server: its transaction removes the grants row; this server hears nothing.
            long revoked = System.nanoTime();
            try (Connection c = database.getConnection(); PreparedStatement s = c.prepareStatement(
                    "DELETE FROM grants WHERE securable_name = ? AND principal = 'bob'")) {
                s.setString(1, stream + "_ingestion");
                assertThat(s.executeUpdate()).isEqualTo(1);
            }
            Duration bound = io.tributary.registry.online.SyncedTableServiceAccess.lookupCache();
            // The bound, plus room for one lookup's own time on a busy machine.
            await().atMost(bound.plusSeconds(3)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> as(BOB)
                    .body(key).post(lookup).then().statusCode(403));
            assertThat(Duration.ofNanos(System.nanoTime() - revoked)).isLessThan(bound.plusSeconds(3));
            as(BOB).body(key).post(lookup).then().statusCode(403);

            // Deleted by another server (its runner drops the table and the row; this server's caches are not told):
            // a not-found, never the old rows or a 500, within the bound.
            as(ALICE).body(key).post(lookup).then().statusCode(200);
            runner.delete(registry.find(synced).orElseThrow());
            await().atMost(bound.plusSeconds(3)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> as(ALICE)
                    .body(key).post(lookup).then().statusCode(404));
        }
    }

    @Test
    void aDeleteCutShortAfterTheDropLeavesARowThatSaysSoAndTheCatchUpFinishesIt() throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            String topic = unique("orders");
            String stream = stream(topics, topic);
            send(topics, topic, "a", 1);
            topics.flush();
            awaitRowsIngested(stream, 1);
            String synced = stream + "_online";
            as(ALICE).body(create(ALICE, synced, stream, "TRIGGERED")).post(SYNCED).then().statusCode(200);
            await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> assertThat(pgRows(synced)).hasSize(1));
            String id = status(ALICE, synced).getString("id");

            // The process dies between dropping the PostgreSQL table and removing the registry row.
            online.hooks(new SyncHooks() {
                @Override
                public void afterDrop(String syncedTableId) {
                    if (syncedTableId.equals(id)) {
                        throw new IllegalStateException("killed after the drop, before the registry row went");
                    }
                }
            });
            assertThat(as(ALICE).delete(SYNCED + "/" + synced).then().extract().statusCode()).isNotEqualTo(200);
            online.hooks(null);
            // Nothing leaks: the registry row outlives the PostgreSQL table and says the delete is unfinished.
            assertThat(tableExists(synced)).isFalse();
            JsonPath half = status(ALICE, synced);
            assertThat(half.getString("data_synchronization_status.state")).isEqualTo("DELETING");
            assertThat(half.getString("data_synchronization_status.message")).contains("did not finish");
            // Nothing syncs it meanwhile.
            as(ALICE).post(SYNCED + "/" + synced + "/sync").then().statusCode(200);
            assertThat(tableExists(synced)).isFalse();

            // The catch-up finishes it, as the server's schedule (or the backfill function's tick) would.
            runner.catchUp();
            as(ALICE).get(SYNCED + "/" + synced).then().statusCode(404);
            assertThat(tableExists(synced)).isFalse();
            // And the name is free again.
            as(ALICE).body(create(ALICE, synced, stream, "TRIGGERED")).post(SYNCED).then().statusCode(200);
            await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> assertThat(pgRows(synced)).hasSize(1));

            // Cut short right after the mark, before the drop: a DELETE again finishes it.
            String id2 = status(ALICE, synced).getString("id");
            registry.markDeleting(synced);
            assertThat(tableExists(synced)).isTrue();
            assertThat(status(ALICE, synced).getString("data_synchronization_status.state")).isEqualTo("DELETING");
            as(ALICE).delete(SYNCED + "/" + synced).then().statusCode(200);
            as(ALICE).get(SYNCED + "/" + synced).then().statusCode(404);
            assertThat(tableExists(synced)).isFalse();
            assertThat(online.store().state(id2)).isNull();
        }
    }

    // ---- a registered Delta table as the source: its owner compacts it, merges into it and changes its schema

    static final String VALUE_V1 = "{\"type\":\"record\",\"name\":\"V\",\"fields\":[{\"name\":\"user_id\",\"type\":"
            + "[\"null\",\"string\"]},{\"name\":\"amount\",\"type\":[\"null\",\"double\"]}]}";
    static final String VALUE_V2 = VALUE_V1.replace("]}]}", "]},{\"name\":\"country\",\"type\":[\"null\",\"string\"],"
            + "\"default\":null}]}");
    static final String VALUE_RETYPED = VALUE_V1.replace("\"double\"", "\"string\"");

    static org.apache.avro.Schema rowSchema(String value) {
        return new org.apache.avro.Schema.Parser().parse("{\"type\":\"record\",\"name\":\"Row\",\"fields\":["
                + "{\"name\":\"value\",\"type\":[\"null\"," + value + "]},"
                + "{\"name\":\"stream_record_timestamp\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}},"
                + "{\"name\":\"record_source\",\"type\":\"string\"}]}");
    }

    static List<org.apache.avro.generic.GenericRecord> rows(org.apache.avro.Schema schema, Object... userAmountSecond) {
        org.apache.avro.Schema value = schema.getField("value").schema().getTypes().get(1);
        List<org.apache.avro.generic.GenericRecord> out = new java.util.ArrayList<>();
        for (int i = 0; i < userAmountSecond.length; i += 3) {
            org.apache.avro.generic.GenericRecord v = new org.apache.avro.generic.GenericData.Record(value);
            v.put("user_id", userAmountSecond[i]);
            v.put("amount", userAmountSecond[i + 1]);
            org.apache.avro.generic.GenericRecord r = new org.apache.avro.generic.GenericData.Record(schema);
            r.put("value", v);
            r.put("stream_record_timestamp", 1_767_225_600_000_000L + ((Number) userAmountSecond[i + 2]).longValue()
                    * 1_000_000L);
            r.put("record_source", "stream");
            out.add(r);
        }
        return out;
    }

    @Inject
    io.tributary.delta.Tables tables;
    @ConfigProperty(name = "tributary.warehouse")
    String warehouse;

    @Test
    void aRegisteredSourceIsFollowedThroughCompactionAMergeAndANewColumnAndStopsAtARetypedOne() throws Exception {
        String location = warehouse + "/external/" + unique("src");
        io.tributary.delta.PartitionKey p = new io.tributary.delta.PartitionKey("t", 0);
        io.tributary.delta.DeltaTable table = tables.create(location, rowSchema(VALUE_V1), Map.of(p, 0L));
        AtomicInteger offset = new AtomicInteger();
        java.util.function.Consumer<List<org.apache.avro.generic.GenericRecord>> append = rs -> table.commit(
                List.of(table.writeDataFile(rs)), Map.of(p, new io.tributary.delta.OffsetRange(offset.get(),
                        offset.addAndGet(rs.size()))));
        String source = "ext." + unique("reg") + ".history";
        as(ALICE).body("{\"name\": \"" + source + "\", \"storage_location\": \"" + location + "\"}")
                .post("/api/2.1/unity-catalog/tables").then().statusCode(200);
        append.accept(rows(rowSchema(VALUE_V1), "u1", 1.0, 10, "u2", 2.0, 10));
        append.accept(rows(rowSchema(VALUE_V1), "u3", 3.0, 10));
        String synced = "ext." + unique("on") + ".history_online";
        as(ALICE).body("{\"name\": \"" + synced + "\", \"spec\": {\"source_table_full_name\": \"" + source + "\", "
                + "\"primary_key_columns\": [\"value.user_id\"], \"timeseries_key\": \"stream_record_timestamp\", "
                + "\"scheduling_policy\": \"TRIGGERED\"}}").post(SYNCED).then().statusCode(200);
        await().atMost(WAIT).untilAsserted(() -> assertThat(status(ALICE, synced)
                .getString("data_synchronization_status.state")).isEqualTo("ONLINE"));
        String lookup = SYNCED + "/" + synced + "/lookup";
        String u1u4u9 = "{\"keys\": [{\"value_user_id\": \"u1\"}, {\"value_user_id\": \"u4\"}, "
                + "{\"value_user_id\": \"u9\"}]}";
        as(ALICE).body(u1u4u9).post(lookup).then().statusCode(200).body("rows[0].value_amount",
                org.hamcrest.Matchers.equalTo(1.0f)).body("rows[1]", org.hamcrest.Matchers.nullValue());

        // A compaction rearranges rows: it syncs nothing; the key added before it still arrives from its own add.
        append.accept(rows(rowSchema(VALUE_V1), "u4", 4.0, 11));
        io.tributary.maintenance.TableMaintenance maintenance = new io.tributary.maintenance.TableMaintenance(tables,
                new io.tributary.maintenance.MaintenanceSettings(64L << 20, Duration.ofDays(7)));
        assertThat(maintenance.maintain(location).compactedVersion()).isPresent();
        JsonPath afterCompaction = as(ALICE).post(SYNCED + "/" + synced + "/sync").then().statusCode(200).extract()
                .jsonPath();
        assertThat(afterCompaction.getLong("data_synchronization_status.rows_synced")).as("3 before, u4, and no "
                + "compacted row").isEqualTo(4);
        assertThat(afterCompaction.getLong("data_synchronization_status.rows")).isEqualTo(4);

        // A merge of history (what a backfill commits): older rows do not win, a key only history has is added.
        long base = table.status().version();
        table.commitExclusive(base, List.of(table.writeDataFile(rows(rowSchema(VALUE_V1), "u1", 100.0, 1,
                "u9", 9.0, 1))), Map.of());
        as(ALICE).post(SYNCED + "/" + synced + "/sync").then().statusCode(200);
        as(ALICE).body(u1u4u9).post(lookup).then().statusCode(200)
                .body("rows[0].value_amount", org.hamcrest.Matchers.equalTo(1.0f))
                .body("rows[1].value_amount", org.hamcrest.Matchers.equalTo(4.0f))
                .body("rows[2].value_amount", org.hamcrest.Matchers.equalTo(9.0f));

        // A new column: added to the PostgreSQL table, and lookups (whose statement was prepared before) carry it.
        assertThat(table.evolveSchema(rowSchema(VALUE_V2))).isPresent();
        List<org.apache.avro.generic.GenericRecord> later = rows(rowSchema(VALUE_V2), "u5", 5.0, 12);
        ((org.apache.avro.generic.GenericRecord) later.get(0).get("value")).put("country", "FR");
        append.accept(later);
        for (int i = 0; i < 20; i++) { // over the pool's connections, each with the old statement prepared
            as(ALICE).body(u1u4u9).post(lookup).then().statusCode(200);
        }
        as(ALICE).post(SYNCED + "/" + synced + "/sync").then().statusCode(200);
        for (int i = 0; i < 20; i++) {
            as(ALICE).body("{\"keys\": [{\"value_user_id\": \"u5\"}, {\"value_user_id\": \"u1\"}]}").post(lookup)
                    .then().statusCode(200).body("rows[0].value_country", org.hamcrest.Matchers.equalTo("FR"))
                    .body("rows[1].value_country", org.hamcrest.Matchers.nullValue())
                    .body("rows[1]", org.hamcrest.Matchers.hasKey("value_country"));
            as(ALICE).body("{\"keys\": [{\"value_user_id\": \"u5\"}]}").post(lookup).then().statusCode(200)
                    .body("rows[0].value_country", org.hamcrest.Matchers.equalTo("FR"));
        }

        // The table replaced by one whose amount is a string: not additive, so the sync stops and says why.
        replaceWithRetypedAmount(location, p, table.status().version());
        JsonPath failed = as(ALICE).post(SYNCED + "/" + synced + "/sync").then().statusCode(200).extract().jsonPath();
        assertThat(failed.getString("data_synchronization_status.state")).isEqualTo("FAILED");
        assertThat(failed.getString("data_synchronization_status.message")).contains("value.amount")
                .contains("changed type").contains("delete it and create it again");
        // The rows synced so far stay readable.
        as(ALICE).body(u1u4u9).post(lookup).then().statusCode(200).body("rows[2].value_amount",
                org.hamcrest.Matchers.equalTo(9.0f));
    }

    /**
     * A CONTINUOUS synced table stopped by a change it cannot follow is not synced again at each of its source's
     * commits and catch-ups (before: every one redid the sync that had to fail, reading the source and logging a
     * warning); an explicit sync still tries.
     */
    @Test
    void aContinuousSyncStoppedByARetypedColumnIsNotRetriedAtEachCommit() throws Exception {
        String location = warehouse + "/external/" + unique("src");
        io.tributary.delta.PartitionKey p = new io.tributary.delta.PartitionKey("t", 0);
        io.tributary.delta.DeltaTable table = tables.create(location, rowSchema(VALUE_V1), Map.of(p, 0L));
        table.commit(List.of(table.writeDataFile(rows(rowSchema(VALUE_V1), "u1", 1.0, 10))),
                Map.of(p, new io.tributary.delta.OffsetRange(0, 1)));
        String source = "ext." + unique("reg") + ".history";
        as(ALICE).body("{\"name\": \"" + source + "\", \"storage_location\": \"" + location + "\"}")
                .post("/api/2.1/unity-catalog/tables").then().statusCode(200);
        String synced = "ext." + unique("on") + ".history_online";
        as(ALICE).body("{\"name\": \"" + synced + "\", \"spec\": {\"source_table_full_name\": \"" + source + "\", "
                + "\"primary_key_columns\": [\"value.user_id\"], \"timeseries_key\": \"stream_record_timestamp\", "
                + "\"scheduling_policy\": \"CONTINUOUS\"}}").post(SYNCED).then().statusCode(200);
        await().atMost(WAIT).untilAsserted(() -> assertThat(status(ALICE, synced)
                .getString("data_synchronization_status.state")).isEqualTo("ONLINE"));

        replaceWithRetypedAmount(location, p, table.status().version());
        java.util.concurrent.atomic.AtomicInteger warnings = new java.util.concurrent.atomic.AtomicInteger();
        java.util.logging.Handler counter = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                String message = record instanceof org.jboss.logmanager.ExtLogRecord ext
                        ? ext.getFormattedMessage() : record.getMessage();
                if (record.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue() && message != null
                        && message.contains(synced)) {
                    warnings.incrementAndGet();
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(
                io.tributary.registry.online.SyncRunner.class.getName());
        logger.addHandler(counter);
        try {
            for (int commit = 0; commit < 3; commit++) {
                // What the server does after each of the source's commits, then what its catch-up does.
                runner.runContinuousOf(registry.find(synced).orElseThrow().sourceLocation());
            }
            runner.catchUp();
            JsonPath failed = status(ALICE, synced);
            assertThat(failed.getString("data_synchronization_status.state")).isEqualTo("FAILED");
            assertThat(failed.getString("data_synchronization_status.message")).contains("changed type");
            assertThat(warnings.get()).as("syncs that failed after the first").isEqualTo(1);
            // Asked for explicitly, the sync tries again (and fails the same way).
            as(ALICE).post(SYNCED + "/" + synced + "/sync").then().statusCode(200)
                    .body("data_synchronization_status.state", org.hamcrest.Matchers.equalTo("FAILED"));
            assertThat(warnings.get()).isEqualTo(2);
        } finally {
            logger.removeHandler(counter);
        }
    }

    /**
     * The table at {@code location} deleted and written anew with {@code amount} a string, past {@code version}: a
     * change no synced table can follow.
     */
    private void replaceWithRetypedAmount(String location, io.tributary.delta.PartitionKey p, long version)
            throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(
                java.nio.file.Path.of(java.net.URI.create(location.startsWith("/") ? "file:" + location : location)))) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        org.apache.avro.Schema retyped = rowSchema(VALUE_RETYPED);
        io.tributary.delta.DeltaTable replaced = tables.create(location, retyped, Map.of(p, 0L));
        for (long v = 0; v <= version; v++) {
            replaced.commit(List.of(replaced.writeDataFile(rows(retyped, "u1", "lots", 20))),
                    Map.of(p, new io.tributary.delta.OffsetRange(v, v + 1)));
        }
    }

    private static void awaitRowsIngested(String stream, long rows) {
        await().atMost(WAIT).untilAsserted(() -> assertThat(as(ALICE).get(STREAMS + "/" + stream).then()
                .statusCode(200).extract().jsonPath().getLong("ingestion_status.rows_ingested")).isEqualTo(rows));
    }
}
