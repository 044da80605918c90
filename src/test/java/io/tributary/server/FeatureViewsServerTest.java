package io.tributary.server;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import io.tributary.registry.features.FeatureViews;
import io.tributary.testing.KafkaTestSupport;
import io.tributary.testing.StreamRequests;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Feature views on the all-in-one server: a real broker, pipeline, PostgreSQL and Delta tables, driven through the
 * API, every value compared with a plain computation in this test over the same records.
 */
@Tag("quarkus")
@QuarkusTest
class FeatureViewsServerTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final String VIEWS = "/api/2.0/feature-engineering/feature-views";
    static final Duration WAIT = Duration.ofSeconds(90);
    static final long MIN = 60_000;
    /**
     * Two days before the tests run, at midnight (windows align to it): every window has ended by wall-clock time, and
     * no record is after its commit (such a record is skipped: SPEC §10). A fixed date fails on a clock before it.
     */
    static final long BASE = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.DAYS).minus(Duration.ofDays(2))
            .toEpochMilli();
    static final long LATENESS = 10 * MIN;

    @Inject
    FeatureViews views;
    @Inject
    Tables tables;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @ConfigProperty(name = "tributary.warehouse")
    String warehouse;

    @AfterEach
    void noHooks() {
        views.hooks(null);
        views.chunkRecords(0);
    }

    /** The features under test: every function, every window kind. */
    static final List<Ref> FEATURES = List.of(
            new Ref("tx_count_10m", "count", null, "tumbling", 10 * MIN, 10 * MIN),
            new Ref("amount_sum_1h", "sum", "value.amount", "sliding", 60 * MIN, 15 * MIN),
            new Ref("amount_avg_30m", "avg", "value.amount", "rolling", 30 * MIN, 30_000),
            new Ref("amount_min_30m", "min", "value.amount", "tumbling", 30 * MIN, 30 * MIN),
            new Ref("amount_max_20m", "max", "value.amount", "sliding", 20 * MIN, 10 * MIN),
            new Ref("amount_first_1h", "first", "value.amount", "tumbling", 60 * MIN, 60 * MIN),
            new Ref("amount_last_1h", "last", "value.amount", "tumbling", 60 * MIN, 60 * MIN),
            new Ref("amount_distinct_1h", "approx_count_distinct", "value.amount", "tumbling", 60 * MIN, 60 * MIN),
            new Ref("amount_stddev_30m", "stddev", "value.amount", "sliding", 30 * MIN, 10 * MIN),
            new Ref("tx_count_rolling_15m", "count", null, "rolling", 15 * MIN, 15_000));

    record Ref(String name, String function, String column, String kind, long d, long s) {
        String json() {
            String window = switch (kind) {
                case "tumbling" -> "{\"tumbling\": {\"duration\": \"" + d / MIN + "m\"}}";
                case "sliding" -> "{\"sliding\": {\"duration\": \"" + d / MIN + "m\", \"slide\": \"" + s / MIN
                        + "m\"}}";
                default -> "{\"rolling\": {\"duration\": \"" + d / MIN + "m\"}}";
            };
            return "{\"name\": \"" + name + "\", \"function\": \"" + function + "\""
                    + (column == null ? "" : ", \"column\": \"" + column + "\"") + ", \"window\": " + window + "}";
        }
    }

    record Rec(String user, double amount, long ts) {}

    private String stream(KafkaTestSupport topics, String topic) {
        String connection = unique("kafka");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        topics.createTopic(topic, 1);
        String name = "main." + unique("f") + ".transactions";
        ObjectNode body = valid(name, connection, topic);
        StreamRequests.with(body, "schema_config.direct_schemas.payload_schema.json_schema",
                "{\"type\":\"object\",\"properties\":{\"user_id\":{\"type\":\"string\"},"
                        + "\"amount\":{\"type\":\"number\"},\"event_time\":{\"type\":\"integer\"}}}");
        as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(200);
        return name;
    }

    private static void send(KafkaTestSupport topics, String topic, Rec r) {
        String value = "{\"user_id\": \"" + r.user() + "\", \"amount\": " + r.amount() + ", \"event_time\": "
                + r.ts() + "}";
        topics.send(topic, 0, null, value.getBytes(StandardCharsets.UTF_8));
    }

    private static String definition(String name, String stream) {
        StringBuilder f = new StringBuilder();
        for (Ref r : FEATURES) {
            f.append(f.length() == 0 ? "" : ", ").append(r.json());
        }
        return "{\"name\": \"" + name + "\", \"source\": {\"stream_name\": \"" + stream + "\"}, "
                + "\"entity_columns\": [\"value.user_id\"], \"timestamp_column\": \"value.event_time\", "
                + "\"allowed_lateness\": \"10m\", \"features\": [" + f + "]}";
    }

    private static JsonPath status(String name) {
        return as(ALICE).get(VIEWS + "/" + name).then().statusCode(200).extract().jsonPath();
    }

    private static void awaitIngested(String stream, long rows) {
        await().atMost(WAIT).untilAsserted(() -> assertThat(as(ALICE).get(STREAMS + "/" + stream).then()
                .statusCode(200).extract().jsonPath().getLong("ingestion_status.rows_ingested")).isEqualTo(rows));
    }

    private static void awaitCaughtUp(String view, long consumed) {
        await().atMost(WAIT).untilAsserted(() -> {
            JsonPath s = status(view);
            assertThat(s.getString("materialization_status.state")).isEqualTo("ONLINE");
            assertThat(s.getLong("materialization_status.records_read")
                    + s.getLong("materialization_status.late_records_dropped")).isEqualTo(consumed);
            assertThat(s.getLong("materialization_status.lag_versions")).isZero();
        });
    }

    @Inject
    javax.sql.DataSource database;

    /**
     * Lookups remember a caller's access for a while (SPEC §10.1): a revoke made through this server reaches them at
     * once, one made on another server (its committed grants row removed behind this server's back) within the bound.
     */
    @Test
    void revokesReachLookupsAtOnceHereAndWithinTheBoundFromAnotherServer() throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            String topic = unique("tx");
            String stream = stream(topics, topic);
            send(topics, topic, new Rec("u1", 1.5, BASE));
            topics.flush();
            awaitIngested(stream, 1);
            String view = stream.replace(".transactions", ".user_features");
            as(ALICE).body(definition(view, stream)).post(VIEWS).then().statusCode(200);
            String lookup = VIEWS + "/" + view + "/lookup";
            String key = "{\"keys\": [{\"value_user_id\": \"u1\"}]}";
            String grants = "/api/2.1/unity-catalog/permissions/table/" + stream + "_ingestion";
            as(BOB).body(key).post(lookup).then().statusCode(403);
            as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"SELECT\"]}]}").patch(grants).then()
                    .statusCode(200);
            as(BOB).body(key).post(lookup).then().statusCode(200);
            // Revoked here: the very next lookup is refused (the 2 s cache would still say yes).
            as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"remove\": [\"SELECT\"]}]}").patch(grants)
                    .then().statusCode(200);
            as(BOB).body(key).post(lookup).then().statusCode(403);

            as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"SELECT\"]}]}").patch(grants).then()
                    .statusCode(200);
            as(BOB).body(key).post(lookup).then().statusCode(200);
            // Revoked on another server: only its grants row goes; this server hears nothing.
            long revoked = System.nanoTime();
            try (java.sql.Connection c = database.getConnection(); java.sql.PreparedStatement st = c.prepareStatement(
                    "DELETE FROM grants WHERE securable_name = ? AND principal = 'bob'")) {
                st.setString(1, stream + "_ingestion");
                assertThat(st.executeUpdate()).isEqualTo(1);
            }
            Duration bound = Duration.ofNanos(
                    io.tributary.registry.features.FeatureViewServiceAccess.lookupCacheNanos());
            await().atMost(bound.plusSeconds(3)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
                    as(BOB).body(key).post(lookup).then()
                            .statusCode(403));
            assertThat(Duration.ofNanos(System.nanoTime() - revoked)).isLessThan(bound.plusSeconds(3));
        }
    }

    @Test
    void everyFunctionAndWindowEqualsAPlainComputationOfflineOnlineAndPointInTime() throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            String topic = unique("tx");
            String stream = stream(topics, topic);
            Random random = new Random(16);
            List<Rec> produced = new ArrayList<>();
            // History: in the table before the view exists; taken whole, none of it late. Five commits (files), the
            // newest times first (as a backfill lands after what it precedes): the first round takes them in parts
            // of about 40 records, in the order of their least event time, and its second part crashes after its
            // offline commit, before its online one.
            for (int i = 0; i < 150; i++) {
                produced.add(record(random, i));
            }
            int[] order = {4, 0, 2, 1, 3};
            for (int b = 0; b < order.length; b++) {
                for (Rec r : produced.subList(order[b] * 30, order[b] * 30 + 30)) {
                    send(topics, topic, r);
                }
                topics.flush();
                awaitIngested(stream, (b + 1) * 30L);
            }
            views.chunkRecords(40);
            // The hooks see every view's rounds (catchUp below runs them all, other tests' views included): count
            // and kill only this one's, or another view's round passes for a part of this one's first round.
            String view = stream.replace(".transactions", ".user_features");
            AtomicInteger firstParts = new AtomicInteger();
            views.hooks(spec -> {
                if (spec.name().equals(view) && firstParts.incrementAndGet() == 2) {
                    throw new IllegalStateException("killed after the offline commit of a first round's part");
                }
            });
            as(ALICE).body(definition(view, stream)).post(VIEWS).then().statusCode(200)
                    .body("name", org.hamcrest.Matchers.equalTo(view));
            await().atMost(WAIT).until(() -> "FAILED".equals(status(view).getString(
                    "materialization_status.state")));
            views.catchUp(); // what the catch-up schedule does (1 h in tests): the first round goes on from its part 2
            awaitCaughtUp(view, produced.size());
            // Parts of about 40 records: 3 of 2 files (60 records) when each batch above landed as one file, more
            // when the pipeline cut one across two micro-batches; the crashed part is taken again, its offline
            // commit kept.
            int parts = firstParts.get() - 1;
            assertThat(parts).isGreaterThanOrEqualTo(3);
            assertThat(tables.open(status(view).getString("offline_table_location")).status().version())
                    .as("the offline table's commits: its creation and one per part of the first round")
                    .isEqualTo(parts);
            Reference ref = new Reference(LATENESS);
            ref.history(produced);

            // Live records in several commits: some late within the lateness (kept), some beyond it (dropped). The
            // first round after the view's first one crashes after its offline commit, before its online one.
            AtomicInteger crashes = new AtomicInteger();
            views.hooks(spec -> {
                if (spec.name().equals(view) && crashes.getAndIncrement() == 0) {
                    throw new IllegalStateException("killed after the offline commit");
                }
            });
            List<Rec> live = new ArrayList<>();
            for (int chunk = 0; chunk < 4; chunk++) {
                for (int i = 0; i < 40; i++) {
                    int n = 150 + chunk * 40 + i;
                    Rec r = record(random, n);
                    if (i == 10) {
                        r = new Rec("u1", 7.25, ref.maxEvent() - 5 * MIN - 13_000 + chunk); // within the lateness
                    } else if (i == 20) {
                        r = new Rec("u2", 99.5, ref.maxEvent() - 40 * MIN + chunk); // beyond it: dropped
                    }
                    live.add(r);
                    ref.live(r);
                    send(topics, topic, r);
                }
                topics.flush();
                awaitIngested(stream, produced.size() + live.size());
                if (chunk == 0) {
                    await().atMost(WAIT).until(() -> crashes.get() >= 1);
                }
            }
            assertThat(ref.late).isGreaterThanOrEqualTo(4);
            awaitCaughtUp(view, produced.size() + live.size());
            assertThat(crashes.get()).isGreaterThanOrEqualTo(2);
            JsonPath s = status(view);
            assertThat(s.getLong("materialization_status.late_records_dropped")).isEqualTo(ref.late);
            assertThat(Instant.parse(s.getString("materialization_status.watermark")).toEpochMilli())
                    .isEqualTo(ref.watermark());

            // Offline: exactly the final windows, each once, every value equal.
            String offline = s.getString("offline_table_location");
            Map<String, Map<String, Object>> expected = ref.finalRows();
            Map<String, Map<String, Object>> actual = new TreeMap<>();
            try (TableRows rows = tables.read(offline)) {
                while (rows.hasNext()) {
                    Map<String, Object> row = rows.next();
                    String key = row.get("value_user_id") + "|" + ((Instant) row.get("window_start")).toEpochMilli()
                            + "|" + ((Instant) row.get("window_end")).toEpochMilli();
                    assertThat(actual).as("window %s written once", key).doesNotContainKey(key);
                    Map<String, Object> values = new TreeMap<>();
                    for (Ref f : FEATURES) {
                        values.put(f.name(), row.get(f.name()));
                    }
                    actual.put(key, values);
                }
            }
            assertThat(expected.size()).as("final windows").isGreaterThan(500);
            assertThat(actual.keySet()).isEqualTo(expected.keySet());
            for (String key : expected.keySet()) {
                for (Ref f : FEATURES) {
                    assertEqual(key + " " + f.name(), actual.get(key).get(f.name()), expected.get(key).get(f.name()));
                }
            }

            // A rolling feature read as an as-of join (its newest row of its shape at or before a step) has at every
            // precision step the value of the window ending there: rows only where it changes lose nothing.
            int steps = 0;
            for (Ref f : FEATURES) {
                if (!f.kind().equals("rolling")) {
                    continue;
                }
                for (String user : List.of("u0", "u1", "u2", "u3", "u4")) {
                    TreeMap<Long, Object> byEnd = new TreeMap<>();
                    actual.forEach((key, values) -> {
                        String[] k = key.split("\\|");
                        long start = Long.parseLong(k[1]);
                        long end = Long.parseLong(k[2]);
                        if (k[0].equals(user) && end - start == f.d() && Math.floorMod(start, f.s()) == 0) {
                            byEnd.put(end, values.get(f.name()));
                        }
                    });
                    Map<Long, List<Rec>> dense = ref.windows(user, f);
                    for (long end = byEnd.firstKey(); end <= ref.watermark(); end += f.s()) {
                        List<Rec> in = dense.get(end - f.d());
                        assertEqual(user + " " + f.name() + " as of " + end, byEnd.floorEntry(end).getValue(),
                                in == null ? null : Reference.value(f, in));
                        steps++;
                    }
                    assertThat(byEnd.size()).as("rows of %s for %s", f.name(), user).isLessThan(dense.size());
                }
            }
            assertThat(steps).isGreaterThan(1_000);

            // Online as of now: every window has ended, so each feature is its newest window (final or not); the
            // rolling ones cover the last minutes, which hold nothing.
            List<String> users = List.of("u0", "u1", "u2", "u3", "u4", "nobody");
            StringBuilder keys = new StringBuilder();
            for (String u : users) {
                keys.append(keys.length() == 0 ? "" : ", ").append("{\"value_user_id\": \"").append(u).append("\"}");
            }
            List<Map<String, Object>> now = as(ALICE).body("{\"keys\": [" + keys + "]}")
                    .post(VIEWS + "/" + view + "/lookup").then().statusCode(200).extract().body().asString()
                    .transform(FeatureViewsServerTest::results);
            assertThat(now).hasSize(users.size());
            assertThat(now.get(users.size() - 1)).isNull();
            for (int u = 0; u < users.size() - 1; u++) {
                assertThat(now.get(u)).containsEntry("value_user_id", users.get(u));
                for (Ref f : FEATURES) {
                    Object want = f.kind().equals("rolling") ? null : ref.newest(users.get(u), f, Long.MAX_VALUE,
                            Long.MAX_VALUE);
                    assertEqual(users.get(u) + " now " + f.name(), now.get(u).get(f.name()), want);
                }
            }

            // Point in time: the features as the final windows had them at t, never from a record at or after t.
            List<String> pit = new ArrayList<>();
            List<long[]> asked = new ArrayList<>();
            for (long t = BASE - 30 * MIN; t <= ref.maxEvent() + 20 * MIN; t += 7 * MIN + 1_234) {
                for (int u = 0; u < 5; u += 2) {
                    pit.add("{\"value_user_id\": \"u" + u + "\", \"as_of\": \"" + Instant.ofEpochMilli(t) + "\"}");
                    asked.add(new long[] {u, t});
                }
            }
            for (int from = 0; from < pit.size(); from += 500) {
                List<String> part = pit.subList(from, Math.min(pit.size(), from + 500));
                List<Map<String, Object>> got = as(ALICE).body("{\"keys\": [" + String.join(", ", part) + "]}")
                        .post(VIEWS + "/" + view + "/lookup").then().statusCode(200).extract().body().asString()
                        .transform(FeatureViewsServerTest::results);
                for (int i = 0; i < part.size(); i++) {
                    long[] a = asked.get(from + i);
                    String user = "u" + a[0];
                    Map<String, Object> row = got.get(i);
                    Map<String, Object> want = new HashMap<>();
                    boolean any = false;
                    for (Ref f : FEATURES) {
                        Object v = ref.pointInTime(user, f, a[1]);
                        any |= ref.hasWindow(user, f, a[1]);
                        want.put(f.name(), v);
                    }
                    if (!any) {
                        assertThat(row).as("%s as of %s", user, Instant.ofEpochMilli(a[1])).isNull();
                        continue;
                    }
                    assertThat(row).as("%s as of %s", user, Instant.ofEpochMilli(a[1])).isNotNull();
                    for (Ref f : FEATURES) {
                        assertEqual(user + " as of " + Instant.ofEpochMilli(a[1]) + " " + f.name(), row.get(f.name()),
                                want.get(f.name()));
                    }
                }
            }

            // The batch form: a spine of (entity, time, label) rows in a registered Delta table; the output table
            // has each row with its features as of its time, equal to the per-key lookup and to the reference (which
            // only sees records before the time), labels carried along.
            String spineLocation = warehouse + "/external/" + unique("spine");
            org.apache.avro.Schema spineSchema = org.apache.avro.SchemaBuilder.record("spine").fields()
                    .name("value_user_id").type().nullable().stringType().noDefault()
                    .name("as_of").type(org.apache.avro.LogicalTypes.timestampMicros().addToSchema(
                            org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG))).noDefault()
                    .name("label").type().doubleType().noDefault()
                    .endRecord();
            io.tributary.delta.DeltaTable spineTable = tables.create(spineLocation, spineSchema, Map.of());
            List<org.apache.avro.generic.GenericRecord> spineRows = new ArrayList<>();
            for (int i = 0; i < asked.size(); i++) {
                org.apache.avro.generic.GenericRecord r = new org.apache.avro.generic.GenericData.Record(spineSchema);
                r.put("value_user_id", "u" + asked.get(i)[0]);
                r.put("as_of", asked.get(i)[1] * 1000);
                r.put("label", (double) i);
                spineRows.add(r);
            }
            for (String odd : new String[] {"nobody", null}) {
                org.apache.avro.generic.GenericRecord r = new org.apache.avro.generic.GenericData.Record(spineSchema);
                r.put("value_user_id", odd);
                r.put("as_of", (ref.maxEvent() + 20 * MIN) * 1000);
                r.put("label", -1.0);
                spineRows.add(r);
            }
            spineTable.commitExclusive(spineTable.status().version(), List.of(spineTable.writeDataFile(spineRows)),
                    Map.of());
            String spine = "ext." + unique("pit") + ".spine";
            as(ALICE).body("{\"name\": \"" + spine + "\", \"storage_location\": \"" + spineLocation + "\"}")
                    .post("/api/2.1/unity-catalog/tables").then().statusCode(200);
            String training = spine.replace(".spine", ".training");
            JsonPath pitAnswer = as(ALICE).body("{\"spine_table\": \"" + spine + "\", \"output_table\": \"" + training
                    + "\"}").post(VIEWS + "/" + view + "/point-in-time").then().statusCode(200).extract().jsonPath();
            assertThat(pitAnswer.getLong("rows")).isEqualTo(spineRows.size());
            String trainingLocation = pitAnswer.getString("output_table_location");
            Map<String, Map<String, Object>> batch = new HashMap<>();
            try (TableRows rows = tables.read(trainingLocation)) {
                while (rows.hasNext()) {
                    Map<String, Object> row = rows.next();
                    batch.put(row.get("value_user_id") + "|" + ((Instant) row.get("as_of")).toEpochMilli(), row);
                }
            }
            assertThat(batch).hasSize(spineRows.size());
            for (int from = 0; from < pit.size(); from += 500) {
                List<String> part = pit.subList(from, Math.min(pit.size(), from + 500));
                List<Map<String, Object>> got = as(ALICE).body("{\"keys\": [" + String.join(", ", part) + "]}")
                        .post(VIEWS + "/" + view + "/lookup").then().statusCode(200).extract().body().asString()
                        .transform(FeatureViewsServerTest::results);
                for (int i = 0; i < part.size(); i++) {
                    long[] a = asked.get(from + i);
                    String user = "u" + a[0];
                    Map<String, Object> row = batch.get(user + "|" + a[1]);
                    assertThat(row).as("%s as of %s in the output", user, Instant.ofEpochMilli(a[1])).isNotNull();
                    assertThat(row.get("label")).isEqualTo((double) (from + i));
                    for (Ref f : FEATURES) {
                        String what = user + " batch as of " + Instant.ofEpochMilli(a[1]) + " " + f.name();
                        assertEqual(what, row.get(f.name()), ref.pointInTime(user, f, a[1]));
                        assertEqual(what + " (lookup)", row.get(f.name()),
                                got.get(i) == null ? null : got.get(i).get(f.name()));
                    }
                }
            }
            for (String odd : new String[] {"nobody", null}) {
                Map<String, Object> row = batch.get(odd + "|" + (ref.maxEvent() + 20 * MIN));
                assertThat(row).as("spine row of %s", odd).isNotNull();
                for (Ref f : FEATURES) {
                    assertThat(row.get(f.name())).isNull();
                }
            }
            assertThat(pitAnswer.getLong("rows_with_features")).isEqualTo(asked.stream()
                    .filter(a -> FEATURES.stream().anyMatch(f -> ref.hasWindow("u" + a[0], f, a[1]))).count());
            // Bad requests name the field; an existing output is a 409.
            as(ALICE).body("{\"spine_table\": \"" + spine + "\", \"output_table\": \"" + training + "\"}")
                    .post(VIEWS + "/" + view + "/point-in-time").then().statusCode(409)
                    .body("message", containsString("output_table"));
            as(ALICE).body("{\"spine_table\": \"" + spine + "\", \"output_table\": \"" + training + "2\", "
                    + "\"timestamp_column\": \"label\"}").post(VIEWS + "/" + view + "/point-in-time").then()
                    .statusCode(400).body("message", containsString("timestamp_column"));
            as(ALICE).body("{\"output_table\": \"" + training + "2\"}").post(VIEWS + "/" + view + "/point-in-time")
                    .then().statusCode(400).body("message", containsString("spine_table"));
            as(ALICE).body("{\"spine_table\": \"" + spine + "_none\", \"output_table\": \"" + training + "2\"}")
                    .post(VIEWS + "/" + view + "/point-in-time").then().statusCode(404)
                    .body("message", containsString("spine_table"));
            assertThat(tables.exists(trainingLocation + "2")).as("no output for a refused request").isFalse();

            // Deleting the view drops its online state and its offline table.
            as(ALICE).delete(VIEWS + "/" + view).then().statusCode(200);
            as(ALICE).get(VIEWS + "/" + view).then().statusCode(404);
            assertThat(tables.exists(offline)).isFalse();
        }
    }

    @Inject
    MaintenanceRuns maintenance;

    /**
     * The offline table gets one small file per round; table maintenance compacts it like an ingestion table (under
     * the view's state row lock), every window stays exactly once with its value, and rounds go on after it.
     */
    @Test
    void maintenanceCompactsTheOfflineTableAndRoundsGoOnExactlyOnce() throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            String topic = unique("tx");
            String stream = stream(topics, topic);
            String view = stream.replace(".transactions", ".counts");
            as(ALICE).body("{\"name\": \"" + view + "\", \"source\": {\"stream_name\": \"" + stream + "\"}, "
                    + "\"entity_columns\": [\"value.user_id\"], \"timestamp_column\": \"value.event_time\", "
                    + "\"features\": [{\"name\": \"n_1m\", \"function\": \"count\", \"window\": "
                    + "{\"tumbling\": {\"duration\": \"1m\"}}}]}").post(VIEWS).then().statusCode(200);
            awaitCaughtUp(view, 0);
            String offline = status(view).getString("offline_table_location");
            Map<String, Long> expected = new TreeMap<>();
            long sent = 0;
            for (int chunk = 0; chunk < 6; chunk++) {
                if (chunk == 4) {
                    int before = tables.dataFiles(offline).size();
                    Map<String, Long> rowsBefore = counts(offline);
                    assertThat(before).as("one file per round with final windows").isGreaterThanOrEqualTo(3);
                    io.tributary.maintenance.TableMaintenance.Summary summary = maintenance.runAll();
                    assertThat(summary.errors()).isZero();
                    assertThat(tables.dataFiles(offline)).as("the offline table compacted").hasSize(1);
                    assertThat(counts(offline)).isEqualTo(rowsBefore);
                }
                for (int i = 0; i < 5; i++) {
                    long ts = BASE + chunk * 2 * MIN + i * 10_000L;
                    send(topics, topic, new Rec("u" + (i % 2), 1, ts));
                    sent++;
                }
                topics.flush();
                awaitIngested(stream, sent);
                awaitCaughtUp(view, sent);
            }
            // Windows end at or below the watermark (lateness 0: the greatest event time) to be final.
            long watermark = BASE + 5 * 2 * MIN + 4 * 10_000L;
            for (int chunk = 0; chunk < 6; chunk++) {
                for (int i = 0; i < 5; i++) {
                    long ts = BASE + chunk * 2 * MIN + i * 10_000L;
                    long start = Math.floorDiv(ts, MIN) * MIN;
                    if (start + MIN <= watermark) {
                        expected.merge("u" + (i % 2) + "|" + start, 1L, Long::sum);
                    }
                }
            }
            assertThat(counts(offline)).isEqualTo(expected);
            as(ALICE).delete(VIEWS + "/" + view).then().statusCode(200);
        }
    }

    /** (entity|window start) → count, failing on a window written twice. */
    private Map<String, Long> counts(String offline) {
        Map<String, Long> out = new TreeMap<>();
        try (TableRows rows = tables.read(offline)) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                String key = row.get("value_user_id") + "|" + ((Instant) row.get("window_start")).toEpochMilli();
                assertThat(out.put(key, (Long) row.get("n_1m"))).as("window %s written once", key).isNull();
            }
        }
        return out;
    }

    /** Doubles as doubles (RestAssured's default reads them as floats). */
    private static List<Map<String, Object>> results(String body) {
        return new JsonPath(body).using(new io.restassured.path.json.config.JsonPathConfig(
                io.restassured.path.json.config.JsonPathConfig.NumberReturnType.DOUBLE)).getList("results");
    }

    private static Rec record(Random random, int i) {
        long ts = BASE + i * 20_000L + random.nextInt(60_000) - 30_000;
        return new Rec("u" + random.nextInt(5), random.nextInt(200) * 0.25, ts);
    }

    private static void assertEqual(String what, Object actual, Object expected) {
        if (expected == null) {
            assertThat(actual).as(what).isNull();
        } else if (expected instanceof Double d) {
            assertThat(actual).as(what).isNotNull();
            assertThat(((Number) actual).doubleValue()).as(what).isCloseTo(d,
                    org.assertj.core.data.Offset.offset(1e-9 * Math.max(1, Math.abs(d))));
        } else {
            assertThat(actual).as(what).isNotNull();
            assertThat(((Number) actual).longValue()).as(what).isEqualTo(((Number) expected).longValue());
        }
    }

    /**
     * The plain computation: records kept by the watermark rule (the history whole; then a record older than the
     * greatest event time before it minus the lateness dropped), each window's values as a list, each function computed
     * from the list. The server advances the watermark per source commit; these records are generated so that no
     * record falls between the two rules (the late ones are 40 minutes behind, the others within a minute of order).
     */
    static final class Reference {
        final long lateness;
        final List<Rec> kept = new ArrayList<>();
        long max = Long.MIN_VALUE;
        long watermark = Long.MIN_VALUE;
        int late;

        Reference(long lateness) {
            this.lateness = lateness;
        }

        void history(List<Rec> records) {
            kept.addAll(records);
            for (Rec r : records) {
                max = Math.max(max, r.ts());
            }
            watermark = max - lateness;
        }

        void live(Rec r) {
            if (r.ts() < watermark) {
                late++;
                return;
            }
            kept.add(r);
            max = Math.max(max, r.ts());
            watermark = Math.max(watermark, max - lateness);
        }

        long maxEvent() {
            return max;
        }

        long watermark() {
            return watermark;
        }

        /** Window start → records of the user in it, for one feature. */
        Map<Long, List<Rec>> windows(String user, Ref f) {
            Map<Long, List<Rec>> out = new TreeMap<>();
            for (Rec r : kept) {
                if (!r.user().equals(user)) {
                    continue;
                }
                for (long start = Math.floorDiv(r.ts(), f.s()) * f.s(); start > r.ts() - f.d(); start -= f.s()) {
                    out.computeIfAbsent(start, k -> new ArrayList<>()).add(r);
                }
            }
            return out;
        }

        static Object value(Ref f, List<Rec> in) {
            switch (f.function()) {
                case "count":
                    return (long) in.size();
                case "sum":
                    return in.stream().mapToDouble(Rec::amount).sum();
                case "avg":
                    return in.stream().mapToDouble(Rec::amount).average().getAsDouble();
                case "min":
                    return in.stream().mapToDouble(Rec::amount).min().getAsDouble();
                case "max":
                    return in.stream().mapToDouble(Rec::amount).max().getAsDouble();
                case "first": {
                    Rec best = null;
                    for (Rec r : in) {
                        if (best == null || r.ts() < best.ts() || (r.ts() == best.ts() && r.amount() < best.amount())) {
                            best = r;
                        }
                    }
                    return best.amount();
                }
                case "last": {
                    Rec best = null;
                    for (Rec r : in) {
                        if (best == null || r.ts() > best.ts() || (r.ts() == best.ts() && r.amount() > best.amount())) {
                            best = r;
                        }
                    }
                    return best.amount();
                }
                case "approx_count_distinct": {
                    Set<Double> distinct = new HashSet<>();
                    in.forEach(r -> distinct.add(r.amount()));
                    return (long) distinct.size();
                }
                case "stddev": {
                    if (in.size() < 2) {
                        return null;
                    }
                    double mean = in.stream().mapToDouble(Rec::amount).average().getAsDouble();
                    double ss = in.stream().mapToDouble(r -> (r.amount() - mean) * (r.amount() - mean)).sum();
                    return Math.sqrt(ss / (in.size() - 1));
                }
                default:
                    throw new IllegalArgumentException(f.function());
            }
        }

        /**
         * user|start|end → feature → value: every tumbling and sliding window the watermark has passed, and a rolling
         * feature's window where a tile (a precision step of records) enters it or leaves it, up to the watermark, its
         * value there (null: left empty); a row of a rolling feature's shape carries its value whatever made the row.
         */
        Map<String, Map<String, Object>> finalRows() {
            Map<String, Map<String, Object>> out = new TreeMap<>();
            for (String user : List.of("u0", "u1", "u2", "u3", "u4")) {
                for (Ref f : FEATURES) {
                    Map<Long, List<Rec>> windows = windows(user, f);
                    if (f.kind().equals("rolling")) {
                        for (Rec r : kept) {
                            long tile = Math.floorDiv(r.ts(), f.s()) * f.s();
                            for (long end : new long[] {tile + f.s(), tile + f.d() + f.s()}) {
                                if (r.user().equals(user) && end <= watermark) {
                                    row(out, user, end - f.d(), end);
                                }
                            }
                        }
                        continue;
                    }
                    for (Map.Entry<Long, List<Rec>> w : windows.entrySet()) {
                        long end = w.getKey() + f.d();
                        if (end <= watermark) {
                            row(out, user, w.getKey(), end).put(f.name(), value(f, w.getValue()));
                        }
                    }
                }
                for (Ref f : FEATURES) {
                    if (!f.kind().equals("rolling")) {
                        continue;
                    }
                    Map<Long, List<Rec>> windows = windows(user, f);
                    for (Map.Entry<String, Map<String, Object>> row : out.entrySet()) {
                        String[] key = row.getKey().split("\\|");
                        long start = Long.parseLong(key[1]);
                        long end = Long.parseLong(key[2]);
                        if (key[0].equals(user) && end - start == f.d() && Math.floorMod(start, f.s()) == 0) {
                            List<Rec> in = windows.get(start);
                            row.getValue().put(f.name(), in == null ? null : value(f, in));
                        }
                    }
                }
            }
            return out;
        }

        private static Map<String, Object> row(Map<String, Map<String, Object>> out, String user, long start,
                long end) {
            return out.computeIfAbsent(user + "|" + start + "|" + end, k -> {
                Map<String, Object> m = new LinkedHashMap<>();
                FEATURES.forEach(g -> m.put(g.name(), null));
                return m;
            });
        }

        /** The newest window ended at or before t and at or before {@code through}. */
        Object newest(String user, Ref f, long t, long through) {
            Object best = null;
            for (Map.Entry<Long, List<Rec>> w : windows(user, f).entrySet()) {
                long end = w.getKey() + f.d();
                if (end <= t && end <= through) {
                    best = value(f, w.getValue()); // ascending starts: the last one kept is the newest
                }
            }
            return best;
        }

        /** The end of the newest window ended at or before t (a rolling one's: t at its precision). */
        long newestEnd(String user, Ref f, long t) {
            if (f.kind().equals("rolling")) {
                return Math.floorDiv(t, f.s()) * f.s();
            }
            long best = Long.MIN_VALUE;
            for (Long start : windows(user, f).keySet()) {
                if (start + f.d() <= t) {
                    best = Math.max(best, start + f.d());
                }
            }
            return best;
        }

        /**
         * A rolling feature: the window ending at t's precision step, or past the watermark at the watermark's (the
         * newest final one, as a tumbling or sliding feature's newest final window).
         */
        Object pointInTime(String user, Ref f, long t) {
            if (f.kind().equals("rolling")) {
                long end = Math.min(Math.floorDiv(t, f.s()), Math.floorDiv(watermark, f.s())) * f.s();
                List<Rec> in = windows(user, f).get(end - f.d());
                return in == null ? null : value(f, in);
            }
            return newest(user, f, t, watermark);
        }

        boolean hasWindow(String user, Ref f, long t) {
            if (f.kind().equals("rolling")) {
                long end = Math.min(Math.floorDiv(t, f.s()), Math.floorDiv(watermark, f.s())) * f.s();
                return windows(user, f).containsKey(end - f.d());
            }
            for (Long start : windows(user, f).keySet()) {
                long end = start + f.d();
                if (end <= t && end <= watermark) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * A stream without Kafka (pushes only) of {user_id, amount, event_time} records and the test's view over it,
     * caught up over the empty table; returns the view's name.
     */
    private String directStreamWithView(String stream) {
        as(ALICE).body("{\"name\": \"" + stream + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": \""
                + "{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"user_id\\\":{\\\"type\\\":\\\"string\\\"},"
                + "\\\"amount\\\":{\\\"type\\\":\\\"number\\\"},\\\"event_time\\\":{\\\"type\\\":\\\"integer\\\"}}}\"}}}, "
                + "\"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + stream
                + "_ingestion\"}}}").post(STREAMS).then().statusCode(200);
        String view = stream + "_features";
        as(ALICE).body(definition(view, stream)).post(VIEWS).then().statusCode(200);
        awaitCaughtUp(view, 0);
        return view;
    }

    /**
     * Pushes to a stream without Kafka are materialized right after their commits, like a pipeline's (the catch-up
     * runs once an hour in the tests, so only the after-commit round can take them in time).
     */
    @Test
    void pushesToADirectStreamAreMaterializedAfterEachCommit() {
        String stream = "main." + unique("fd") + ".transactions";
        String view = directStreamWithView(stream);
        long now = System.currentTimeMillis();
        for (int sequence = 0; sequence < 3; sequence++) {
            StringBuilder records = new StringBuilder();
            for (int i = 0; i < 4; i++) {
                records.append(i == 0 ? "" : ", ").append("{\"value\": {\"user_id\": \"u").append(i)
                        .append("\", \"amount\": 1.5, \"event_time\": ").append(now + sequence * 1000 + i).append("}}");
            }
            as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": " + sequence + ", \"records\": [" + records
                    + "]}").post(STREAMS + "/" + stream + "/records").then().statusCode(200);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonPath s = status(view);
            assertThat(s.getLong("materialization_status.records_read")).isEqualTo(12);
            assertThat(s.getLong("materialization_status.lag_versions")).isZero();
        });
    }

    /**
     * A record whose event time is far ahead of its commit (a producer's clock years off, microseconds sent as
     * milliseconds) is skipped and counted, and the watermark stays where the other records put it: before, it moved
     * the watermark to that time, and every later record of every entity was dropped as late.
     */
    @Test
    void aRecordFromTheFutureIsSkippedAndLeavesLaterRecordsOnTime() {
        String stream = "main." + unique("ff") + ".transactions";
        String view = directStreamWithView(stream);
        long now = System.currentTimeMillis();
        String[] pushes = {
            "{\"user_id\": \"u1\", \"amount\": 1.5, \"event_time\": " + now + "}",
            "{\"user_id\": \"u1\", \"amount\": 2.5, \"event_time\": " + now * 1000 + "}",
            "{\"user_id\": \"u1\", \"amount\": 4.0, \"event_time\": " + (now + 1000) + "}}, {\"value\": "
                    + "{\"user_id\": \"u2\", \"amount\": 1.0, \"event_time\": " + (now + 1000) + "}"};
        for (int sequence = 0; sequence < pushes.length; sequence++) {
            as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": " + sequence + ", \"records\": [{\"value\": "
                    + pushes[sequence] + "}]}").post(STREAMS + "/" + stream + "/records").then().statusCode(200);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonPath s = status(view);
            assertThat(s.getLong("materialization_status.lag_versions")).isZero();
            assertThat(s.getLong("materialization_status.records_read")
                    + s.getLong("materialization_status.records_skipped")
                    + s.getLong("materialization_status.late_records_dropped")).isEqualTo(4);
        });
        JsonPath s = status(view);
        assertThat(s.getLong("materialization_status.late_records_dropped")).as(s.prettify()).isZero();
        assertThat(s.getLong("materialization_status.records_skipped")).isEqualTo(1);
        assertThat(s.getLong("materialization_status.records_read")).isEqualTo(3);
        as(ALICE).body("{\"keys\": [{\"value_user_id\": \"u2\"}]}").post(VIEWS + "/" + view + "/lookup").then()
                .statusCode(200).body("results[0].value_user_id", org.hamcrest.Matchers.equalTo("u2"));
    }

    /**
     * A view stopped for good (its source no longer fits the definition, or its commits are gone from the log) is not
     * run again at each of its source's commits and catch-ups: before, every commit redid the round that had to fail,
     * reading the source and logging a warning each time.
     */
    @Test
    void aViewStoppedForGoodIsNotRunAgainAtEachCommitOrCatchUp() {
        String stream = "main." + unique("fs") + ".transactions";
        String view = directStreamWithView(stream);
        AtomicInteger rounds = new AtomicInteger();
        views.hooks(spec -> {
            if (spec.name().equals(view)) {
                rounds.incrementAndGet();
                throw new io.tributary.features.FeatureDefinitionException("value.amount", "is no longer a number");
            }
        });
        long now = System.currentTimeMillis();
        for (int sequence = 0; sequence < 3; sequence++) {
            as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": " + sequence + ", \"records\": [{\"value\": "
                    + "{\"user_id\": \"u1\", \"amount\": 1.5, \"event_time\": " + (now + sequence) + "}}]}")
                    .post(STREAMS + "/" + stream + "/records").then().statusCode(200);
            if (sequence == 0) {
                await().atMost(Duration.ofSeconds(30)).until(() -> "FAILED".equals(status(view).getString(
                        "materialization_status.state")));
                assertThat(status(view).getString("materialization_status.message"))
                        .contains("delete the feature view and create it again");
            }
        }
        views.catchUp();
        assertThat(rounds.get()).as("rounds run after the view stopped for good").isEqualTo(1);
        assertThat(status(view).getString("materialization_status.state")).isEqualTo("FAILED");
    }

    /**
     * A view whose source stream was deleted is deleted on a server that never compiled it (another server, or this
     * one after a restart): its state row and online tables go with it. Before, the delete compiled the view to find
     * its tables, which reads the source; with the source gone that failed, was ignored, and the tiles, latest
     * windows and state row stayed in the online database for ever, with no registry row left to finish the delete.
     */
    @Test
    void aViewWhoseSourceStreamIsGoneIsDeletedWithItsOnlineTablesOnAServerThatNeverCompiledIt() throws Exception {
        String stream = "main." + unique("fg") + ".transactions";
        as(ALICE).body("{\"name\": \"" + stream + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": \""
                + "{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"user_id\\\":{\\\"type\\\":\\\"string\\\"},"
                + "\\\"amount\\\":{\\\"type\\\":\\\"number\\\"},\\\"event_time\\\":{\\\"type\\\":\\\"integer\\\"}}}\"}}}, "
                + "\"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + stream
                + "_ingestion\"}}}").post(STREAMS).then().statusCode(200);
        String view = stream + "_features";
        String id = as(ALICE).body(definition(view, stream)).post(VIEWS).then().statusCode(200).extract()
                .path("id");
        as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"value\": {\"user_id\": "
                + "\"u1\", \"amount\": 1.5, \"event_time\": " + BASE + "}}]}").post(STREAMS + "/" + stream
                + "/records").then().statusCode(200);
        await().atMost(WAIT).untilAsserted(() -> assertThat(status(view)
                .getLong("materialization_status.records_read")).isEqualTo(1));
        assertThat(onlineObjects(id)).as("the view's state row and tables while it lives").isEqualTo(3);

        as(ALICE).delete(STREAMS + "/" + stream).then().statusCode(200);
        // Until it is deleted its owner reads it (SPEC §10.3: what it computed stays readable): the source's owner and
        // grants are gone with the source, so owning the view decides. Before, GET was a 403 for its owner.
        await().atMost(WAIT).untilAsserted(() -> assertThat(status(view)
                .getString("materialization_status.state")).isEqualTo("STOPPED"));
        as(ALICE).body("{\"keys\": [{\"value_user_id\": \"u1\"}]}").post(VIEWS + "/" + view + "/lookup").then()
                .statusCode(200).body("results[0].tx_count_10m", org.hamcrest.Matchers.equalTo(1));
        as(BOB).get(VIEWS + "/" + view).then().statusCode(403);
        io.tributary.registry.features.FeatureViewServiceAccess.forget(views, id);
        as(ALICE).delete(VIEWS + "/" + view).then().statusCode(200);
        as(ALICE).get(VIEWS + "/" + view).then().statusCode(404);
        assertThat(onlineObjects(id)).as("state row, tiles and latest windows left after the delete").isZero();
    }

    @Inject
    io.tributary.registry.online.OnlineDatabase onlineDatabase;

    /**
     * This server keeps a view's tiles between its own rounds. A view deleted through another server (whose delete
     * clears only its own memory), or stopped by its source's delete, lets them go here at the next catch-up or round
     * (before: kept until a restart, as large as the view's open windows; found with two packaged servers, a deleted
     * view's 17,968 tiles still held by the other after a full GC).
     */
    @Test
    void aViewDeletedThroughAnotherServerOrStoppedLeavesNoTilesInThisOnesMemory() throws Exception {
        String stream = directStream("main." + unique("mem") + ".transactions",
                "\"user_id\":{\"type\":\"string\"},\"amount\":{\"type\":\"number\"},"
                        + "\"event_time\":{\"type\":\"integer\"}");
        String deleted = stream + "_deleted";
        String stopped = stream + "_stopped";
        String deletedId = as(ALICE).body(definition(deleted, stream)).post(VIEWS).then().statusCode(200).extract()
                .path("id");
        String stoppedId = as(ALICE).body(definition(stopped, stream)).post(VIEWS).then().statusCode(200).extract()
                .path("id");
        as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"value\": {\"user_id\": "
                + "\"u1\", \"amount\": 1.5, \"event_time\": " + BASE + "}}]}").post(STREAMS + "/" + stream
                + "/records").then().statusCode(200);
        awaitCaughtUp(deleted, 1);
        awaitCaughtUp(stopped, 1);
        await().atMost(WAIT).untilAsserted(() -> assertThat(views.store().heldViews())
                .contains(deletedId, stoppedId));

        // Another server's delete: its own store drops the state and tables; this server's memory is not told.
        io.tributary.registry.features.FeatureViewRow row = featureViewRows.find(deleted).orElseThrow();
        new io.tributary.features.FeatureStore(onlineDatabase.store()).drop(row.id(), row.fullName(),
                row.onlineTables());
        tables.delete(row.offlineLocation());
        featureViewRows.delete(deleted);
        views.catchUp();
        assertThat(views.store().heldViews()).as("tiles of the view deleted elsewhere").doesNotContain(deletedId);

        as(ALICE).delete(STREAMS + "/" + stream).then().statusCode(200);
        await().atMost(WAIT).untilAsserted(() -> assertThat(status(stopped)
                .getString("materialization_status.state")).isEqualTo("STOPPED"));
        views.catchUp();
        assertThat(views.store().heldViews()).as("tiles of the stopped view").doesNotContain(stoppedId);
    }

    private static String directStream(String name, String properties) {
        as(ALICE).body("{\"name\": \"" + name + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + "\"{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{" + properties.replace("\"", "\\\"")
                + "}}\"}}}, \"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + name
                + "_ingestion\"}}}").post(STREAMS).then().statusCode(200);
        return name;
    }

    @Inject
    io.tributary.registry.features.FeatureViewStore featureViewRows;

    /**
     * A view deleted and created again under its name over other entity columns and features by another server,
     * while this server remembers the old view for its lookups (up to 2 s): lookups answer for the new view at once.
     * Before, the old view's online tables were gone, so a key as of now was a 404 for a view that exists, a key the
     * new view takes was a 400 (checked against the old entity columns), and an as-of key read the new view's offline
     * table with the old definition: 200 with nothing found.
     */
    @Test
    void aViewCreatedAgainElsewhereOverOtherColumnsIsLookedUpAsTheNewView() throws Exception {
        String first = directStream("main." + unique("va") + ".transactions",
                "\"user_id\":{\"type\":\"string\"},\"amount\":{\"type\":\"number\"},"
                        + "\"event_time\":{\"type\":\"integer\"}");
        String second = directStream("main." + unique("vb") + ".visits",
                "\"account\":{\"type\":\"string\"},\"event_time\":{\"type\":\"integer\"}");
        String view = first + "_features";
        as(ALICE).body(definition(view, first)).post(VIEWS).then().statusCode(200);
        as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"value\": {\"user_id\": "
                + "\"u1\", \"amount\": 1.5, \"event_time\": " + BASE + "}}]}").post(STREAMS + "/" + first
                + "/records").then().statusCode(200);
        as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"value\": {\"account\": "
                + "\"a1\", \"event_time\": " + BASE + "}}]}").post(STREAMS + "/" + second + "/records").then()
                .statusCode(200);
        awaitIngested(second, 1);
        awaitCaughtUp(view, 1);
        String lookup = VIEWS + "/" + view + "/lookup";
        String oldKey = "{\"keys\": [{\"value_user_id\": \"u1\"}]}";
        as(ALICE).body(oldKey).post(lookup).then().statusCode(200)
                .body("results[0].tx_count_10m", org.hamcrest.Matchers.equalTo(1));

        String again = "{\"name\": \"" + view + "\", \"source\": {\"stream_name\": \"" + second + "\"}, "
                + "\"entity_columns\": [\"value.account\"], \"timestamp_column\": \"value.event_time\", "
                + "\"features\": [{\"name\": \"visits_10m\", \"function\": \"count\", \"window\": "
                + "{\"tumbling\": {\"duration\": \"10m\"}}}]}";
        String newKey = "{\"keys\": [{\"value_account\": \"a1\"}]}";
        String asOf = "{\"keys\": [{\"value_account\": \"a1\", \"as_of\": \"2026-12-01T00:00:00Z\"}]}";
        Duration bound = Duration.ofNanos(io.tributary.registry.features.FeatureViewServiceAccess.lookupCacheNanos());
        // Each round remembers the old view through a lookup, then another server replaces it; this one is not told.
        for (String[] ask : List.of(new String[] {oldKey, "400"}, new String[] {newKey, "200"},
                new String[] {asOf, "200"})) {
            as(ALICE).body(oldKey).post(lookup).then().statusCode(200);
            long remembered = System.nanoTime();
            io.tributary.registry.features.FeatureViewServiceAccess.deleteElsewhere(featureViewRows, views, tables,
                    view);
            as(ALICE).body(again).post(VIEWS).then().statusCode(200);
            var answer = as(ALICE).body(ask[0]).post(lookup).then().extract();
            org.junit.jupiter.api.Assumptions.assumeTrue(System.nanoTime() - remembered < bound.toNanos(),
                    "the machine took longer than the cache's bound to replace the view: the window was missed");
            assertThat(answer.statusCode()).as(ask[0] + " -> " + answer.asString())
                    .isEqualTo(Integer.parseInt(ask[1]));
            if (ask[0].equals(oldKey)) {
                assertThat(answer.jsonPath().getString("message")).contains("value_account");
            } else {
                // Found or not yet materialized: never the old view's features.
                assertThat(answer.asString()).doesNotContain("tx_count_10m");
            }
            // The next round starts from the old view again.
            io.tributary.registry.features.FeatureViewServiceAccess.deleteElsewhere(featureViewRows, views, tables,
                    view);
            as(ALICE).body(definition(view, first)).post(VIEWS).then().statusCode(200);
            awaitCaughtUp(view, 1);
            await().atMost(WAIT).untilAsserted(() -> as(ALICE).body(oldKey).post(lookup).then().statusCode(200)
                    .body("results[0].tx_count_10m", org.hamcrest.Matchers.equalTo(1)));
        }
    }

    /**
     * An {@code as_of} beyond RFC 3339's four-digit years is a 400 naming it. Before, Java's parser took years up to
     * 999999999 and their epoch milliseconds overflowed in the lookup: a 500.
     */
    @Test
    void anAsOfBeyondFourDigitYearsIsA400() {
        String stream = "main." + unique("fy") + ".transactions";
        as(ALICE).body("{\"name\": \"" + stream + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": \""
                + "{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"user_id\\\":{\\\"type\\\":\\\"string\\\"},"
                + "\\\"amount\\\":{\\\"type\\\":\\\"number\\\"},\\\"event_time\\\":{\\\"type\\\":\\\"integer\\\"}}}\"}}}, "
                + "\"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + stream
                + "_ingestion\"}}}").post(STREAMS).then().statusCode(200);
        String view = stream + "_features";
        as(ALICE).body(definition(view, stream)).post(VIEWS).then().statusCode(200);
        String lookup = VIEWS + "/" + view + "/lookup";
        String key = "{\"keys\": [{\"value_user_id\": \"u1\", \"as_of\": \"%s\"}]}";
        await().atMost(WAIT).untilAsserted(() -> as(ALICE).body(key.formatted("2026-12-01T10:00:00Z")).post(lookup)
                .then().statusCode(200));
        for (String asOf : List.of("+999999999-12-31T23:59:59Z", "-999999999-01-01T00:00:00Z",
                "+10000-01-01T00:00:00Z")) {
            as(ALICE).body(key.formatted(asOf)).post(lookup).then().statusCode(400)
                    .body("message", containsString("keys[0].as_of"));
        }
    }

    /** The view's state row plus its tiles and latest-windows tables found in the online database. */
    private int onlineObjects(String viewId) throws Exception {
        String tables;
        try (java.sql.Connection c = database.getConnection(); java.sql.PreparedStatement st = c.prepareStatement(
                "SELECT online_tables FROM feature_views WHERE id::text = ?")) {
            st.setString(1, viewId);
            try (java.sql.ResultSet rs = st.executeQuery()) {
                tables = rs.next() ? rs.getString(1) : knownTables.get(viewId);
            }
        }
        knownTables.put(viewId, tables);
        int n = 0;
        try (java.sql.Connection c = database.getConnection(); java.sql.PreparedStatement st = c.prepareStatement(
                "SELECT (SELECT count(*) FROM tributary_online._feature_state WHERE view_id = ?) "
                        + "+ (SELECT count(*) FROM information_schema.tables WHERE table_schema = 'tributary_online' "
                        + "AND table_name IN (?, ?))")) {
            st.setString(1, viewId);
            st.setString(2, tables + "_tiles");
            st.setString(3, tables + "_latest");
            try (java.sql.ResultSet rs = st.executeQuery()) {
                rs.next();
                n = rs.getInt(1);
            }
        }
        return n;
    }

    private final Map<String, String> knownTables = new HashMap<>();

    /**
     * As of now, with records of the last 50 minutes and 10 minutes of lateness: the newest windows have ended but are
     * not final, so the lookup combines them from the tiles (the rolling ones always), the older ones come from the
     * stored final windows; a key asked twice is answered twice, a missing entity with null.
     */
    @Test
    void aLookupAsOfNowCombinesTheTilesOfWindowsNotYetFinal() throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            String topic = unique("tx");
            String stream = stream(topics, topic);
            Random random = new Random(17);
            long start = System.currentTimeMillis() - 50 * MIN;
            List<Rec> records = new ArrayList<>();
            for (int i = 0; i < 120; i++) {
                records.add(new Rec("u" + random.nextInt(3), random.nextInt(200) * 0.25, start + i * 24_500L));
            }
            for (Rec r : records) {
                send(topics, topic, r);
            }
            topics.flush();
            awaitIngested(stream, records.size());
            String view = stream.replace(".transactions", ".user_features");
            as(ALICE).body(definition(view, stream)).post(VIEWS).then().statusCode(200);
            awaitCaughtUp(view, records.size());
            Reference ref = new Reference(LATENESS);
            ref.history(records);
            List<String> users = List.of("u0", "u1", "u2", "u0", "nobody");
            String body = "{\"keys\": [" + String.join(", ", users.stream().map(u -> "{\"value_user_id\": \"" + u
                    + "\"}").toList()) + "]}";
            boolean compared = false;
            for (int attempt = 0; attempt < 10 && !compared; attempt++) {
                long before = System.currentTimeMillis();
                List<Map<String, Object>> now = as(ALICE).body(body).post(VIEWS + "/" + view + "/lookup").then()
                        .statusCode(200).extract().body().asString().transform(FeatureViewsServerTest::results);
                long after = System.currentTimeMillis();
                Map<String, Object> expectedBefore = expectedNow(ref, before);
                if (!expectedBefore.equals(expectedNow(ref, after))) {
                    continue; // a window ended while the lookup ran: ask again
                }
                compared = true;
                assertThat(now).hasSize(users.size());
                assertThat(now.get(users.size() - 1)).isNull();
                assertThat(now.get(3)).isEqualTo(now.get(0));
                int notFinal = 0;
                for (int u = 0; u < users.size() - 1; u++) {
                    assertThat(now.get(u)).containsEntry("value_user_id", users.get(u));
                    for (Ref f : FEATURES) {
                        assertEqual(users.get(u) + " now " + f.name(), now.get(u).get(f.name()),
                                expectedBefore.get(users.get(u) + "|" + f.name()));
                        if (ref.newestEnd(users.get(u), f, before) > ref.watermark()) {
                            notFinal++;
                        }
                    }
                }
                assertThat(notFinal).as("features whose newest window is not final").isGreaterThan(10);
            }
            assertThat(compared).as("a lookup no window end fell into").isTrue();
        }
    }

    /** user|feature → the feature as of {@code t}: the newest ended window, a rolling one ending at t's precision. */
    private static Map<String, Object> expectedNow(Reference ref, long t) {
        Map<String, Object> out = new HashMap<>();
        for (String user : List.of("u0", "u1", "u2")) {
            for (Ref f : FEATURES) {
                Object v;
                if (f.kind().equals("rolling")) {
                    long end = Math.floorDiv(t, f.s()) * f.s();
                    List<Rec> in = ref.windows(user, f).get(end - f.d());
                    v = in == null ? null : Reference.value(f, in);
                } else {
                    v = ref.newest(user, f, t, Long.MAX_VALUE);
                }
                out.put(user + "|" + f.name(), v);
            }
        }
        return out;
    }

    @Test
    void badDefinitionsAre400sNamingTheField() throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            String stream = stream(topics, unique("tx"));
            String name = stream.replace(".transactions", ".bad");
            String good = definition(name, stream);
            Map<String, String> cases = new LinkedHashMap<>();
            cases.put(good.replace("\"value.user_id\"", "\"value.nope\""), "entity_columns[0]");
            cases.put(good.replace("\"value.event_time\"", "\"value.user_id\""), "timestamp_column");
            cases.put(good.replace("\"10m\"", "\"ten minutes\""), "allowed_lateness");
            cases.put(good.replace("\"function\": \"sum\"", "\"function\": \"median\""), "features[1].function");
            cases.put(good.replace("\"function\": \"sum\", \"column\": \"value.amount\"",
                    "\"function\": \"sum\", \"column\": \"value.user_id\""), "features[1].column");
            cases.put(good.replace("\"slide\": \"15m\"", "\"slide\": \"2h\""), "features[1].window.sliding.slide");
            cases.put(good.replace("{\"tumbling\": {\"duration\": \"10m\"}}", "{}"), "features[0].window");
            cases.put(good.replace("\"name\": \"tx_count_10m\"", "\"name\": \"amount_sum_1h\""), "features[1].name");
            cases.put(good.replace("\"stream_name\": \"" + stream + "\"", "\"stream_name\": \"" + stream + "x\""),
                    "source.stream_name");
            for (Map.Entry<String, String> c : cases.entrySet()) {
                as(ALICE).body(c.getKey()).post(VIEWS).then().statusCode(org.hamcrest.Matchers.oneOf(400, 404))
                        .body("message", containsString(c.getValue()));
            }
            as(ALICE).get(VIEWS + "/" + name).then().statusCode(404);
        }
    }
}
