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
            // The first sync runs at create.
            await().atMost(WAIT).untilAsserted(() -> {
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

    private static void awaitRowsIngested(String stream, long rows) {
        await().atMost(WAIT).untilAsserted(() -> assertThat(as(ALICE).get(STREAMS + "/" + stream).then()
                .statusCode(200).extract().jsonPath().getLong("ingestion_status.rows_ingested")).isEqualTo(rows));
    }
}
