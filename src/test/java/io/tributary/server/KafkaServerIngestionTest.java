package io.tributary.server;

import org.junit.jupiter.api.Tag;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.path.json.JsonPath;
import io.tributary.delta.Tables;
import io.tributary.testing.KafkaTestSupport;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/** The all-in-one server: a stream created through the API is ingested, reported, exported, followed and stopped. */
@Tag("quarkus")
@QuarkusTest
class KafkaServerIngestionTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";

    @Inject
    Tables tables;
    @Inject
    ServerPipelines pipelines;
    @Inject
    DataSource database;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void createIngestReportAndDelete() throws Exception {
        String connection = unique("kafka");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        String topic = unique("orders");
        String schema = unique("s");
        String name = "main." + schema + ".orders";
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            topics.createTopic(topic, 2);
            for (int i = 0; i < 4; i++) {
                topics.send(topic, i % 2, null, utf8("{\"id\": \"before-" + i + "\"}"));
            }
            topics.flush();

            JsonPath created = as(ALICE).body(valid(name, connection, topic).toString()).post(STREAMS).then()
                    .statusCode(200).extract().jsonPath();
            String id = created.getString("stream_id");
            assertThat(pipelines.runsHere(id)).isTrue();

            for (int i = 0; i < 20; i++) {
                topics.send(topic, i % 2, utf8("k" + i), utf8(i == 7 ? "{broken" : "{\"id\": \"after-" + i
                        + "\", \"amount\": " + i + ".5}"));
            }
            topics.flush();
            String location = tables.defaultLocation("main", schema, "orders_ingestion");
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                JsonPath s = as(ALICE).get(STREAMS + "/" + name).then().statusCode(200).extract().jsonPath();
                assertThat(s.getString("state")).isEqualTo("RUNNING");
                assertThat(s.getLong("ingestion_status.rows_ingested")).isEqualTo(20);
                assertThat(s.getLong("ingestion_status.decode_failures")).isEqualTo(1);
                assertThat(s.getString("ingestion_status.last_commit_at")).isNotNull();
                assertThat(s.<Map<String, Object>>getList("ingestion_status.partitions"))
                        .extracting(p -> p.get("partition") + "@" + p.get("committed_offset") + " lag " + p.get("lag"))
                        .containsExactlyInAnyOrder("0@12 lag 0", "1@12 lag 0");
                // Freshness in the API: both partitions committed records (produced just now).
                assertThat(s.getString("ingestion_status.valid_through")).isNotNull();
                assertThat(s.<Map<String, Object>>getList("ingestion_status.partitions"))
                        .allSatisfy(p -> assertThat(p.get("last_commit_at")).isNotNull());
            });
            List<Map<String, Object>> rows = KafkaTestSupport.rows(tables, location);
            assertThat(KafkaTestSupport.coordinates(rows)).containsExactly(
                    topic + "/0/2", topic + "/0/3", topic + "/0/4", topic + "/0/5", topic + "/0/6", topic + "/0/7",
                    topic + "/0/8", topic + "/0/9", topic + "/0/10", topic + "/0/11",
                    topic + "/1/2", topic + "/1/3", topic + "/1/4", topic + "/1/5", topic + "/1/6", topic + "/1/7",
                    topic + "/1/8", topic + "/1/9", topic + "/1/10", topic + "/1/11");
            assertThat(rows.get(0).get("value")).isEqualTo(Map.of("id", "after-0", "amount", 0.5));
            assertThat(rows.stream().filter(r -> r.get("value") == null).map(r -> r.get("key")))
                    .containsExactly("k7");

            String metrics = RestAssured.get("/q/metrics").then().statusCode(200).extract().asString();
            assertThat(metrics).contains("tributary_ingest_records_total{stream=\"" + name + "\"} 20.0")
                    .contains("tributary_ingest_decode_failures_total{stream=\"" + name + "\"} 1.0")
                    .contains("tributary_ingest_commit_latency_seconds_count{stream=\"" + name + "\"}")
                    .contains("tributary_ingest_freshness_seconds_count{stream=\"" + name + "\"}")
                    .containsPattern("tributary_ingest_lag\\{partition=\"0\",stream=\"" + name.replace(".", "\\.")
                            + "\",topic=\"" + topic + "\"} 0.0")
                    .contains("tributary_ingest_stalled{stream=\"" + name + "\"} 0.0")
                    .containsPattern("tributary_ingest_valid_through_seconds\\{stream=\"" + name.replace(".", "\\.")
                            + "\"} 1\\.[0-9]+E9")
                    .containsPattern("tributary_ingest_last_commit_seconds\\{partition=\"1\",stream=\""
                            + name.replace(".", "\\.") + "\",topic=\"" + topic + "\"} 1\\.[0-9]+E9");

            // Another server stops and starts the stream: this one follows through the registry's notifications.
            notifyLifecycle(id, "STOPPED", System.currentTimeMillis());
            await().atMost(Duration.ofSeconds(30)).until(() -> !pipelines.runsHere(id));
            // A start announced before the stop (a late event during a delete) must not revive the pipeline.
            notifyLifecycle(id, "STARTED", System.currentTimeMillis() - 60_000);
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() -> !pipelines.runsHere(id));
            assertThat(pipelines.runsHere(id)).isFalse();
            notifyLifecycle(id, "STARTED", System.currentTimeMillis());
            await().atMost(Duration.ofSeconds(30)).until(() -> pipelines.runsHere(id));

            as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
            assertThat(pipelines.runsHere(id)).isFalse();
            assertThat(pipelines.status(id)).isEmpty();
            assertThat(tables.exists(location)).isFalse();
            for (int i = 0; i < 10; i++) {
                topics.send(topic, 0, null, utf8("{\"id\": \"late\"}"));
            }
            topics.flush();
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> !tables.exists(location));
            assertThat(tables.exists(location)).as("no write lands after the delete returned").isFalse();
            assertThat(RestAssured.get("/q/metrics").then().extract().asString())
                    .doesNotContain("stream=\"" + name + "\"");
        }
    }

    /** What another server's LifecycleEmitter sends. */
    private void notifyLifecycle(String streamId, String action, long announcedAt) throws SQLException {
        try (Connection c = database.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            s.setString(1, LifecycleEvent.CHANNEL);
            s.setString(2, "{\"stream_id\":\"" + streamId + "\",\"action\":\"" + action + "\",\"announced_at\":"
                    + announcedAt + "}");
            s.execute();
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
