package io.tributary.server;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.junit.QuarkusTest;
import io.tributary.testing.KafkaTestSupport;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Notifications sent while a server's listening session is gone are lost (PostgreSQL delivers them to the sessions
 * listening at the time): when the listener is back, the server catches up with the registry, starting a stream it
 * missed and stopping one deleted meanwhile.
 */
@Tag("quarkus")
@QuarkusTest
class LifecycleCatchUpTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";

    @Inject
    ServerPipelines pipelines;
    @Inject
    LifecycleListener listener;
    @Inject
    StreamCatchUp catchUp;
    @Inject
    DataSource database;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void afterALostListeningSessionTheServerCatchesUp() throws Exception {
        String connection = unique("kafka");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        String topic = unique("catchup");
        String schema = unique("s");
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            topics.createTopic(topic, 1);
            String missed = create("main." + schema + ".missed", connection, topic);
            String deleted = create("main." + schema + ".deleted", connection, topic);
            await().atMost(Duration.ofSeconds(30)).until(() -> listeningSessions() == 1);

            // What this server would have missed while its session was gone: another server's start of a stream
            // (it does not run here) and another server's delete (its rows are gone, its pipeline still runs here).
            pipelines.stopHere(missed);
            try (Connection c = database.getConnection()) {
                try (PreparedStatement s = c.prepareStatement("DELETE FROM streams WHERE id = ?")) {
                    s.setString(1, deleted);
                    assertThat(s.executeUpdate()).isEqualTo(1);
                }
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'LISTEN %'");
                }
            }
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(pipelines.runsHere(missed)).as("the missed start caught up").isTrue();
                assertThat(pipelines.runsHere(deleted)).as("the missed delete caught up").isFalse();
            });
            assertThat(listeningSessions()).isEqualTo(1);
            as(ALICE).delete(STREAMS + "/main." + schema + ".missed").then().statusCode(200);
        }
    }

    /**
     * A notification can be lost while this server listens all along: the server that created a stream killed right
     * after its commit, before its {@code NOTIFY}, or the {@code NOTIFY} timing out on its busy pool. Nothing else
     * would tell this server, so it compares its pipelines with the registry now and then (every minute; here every
     * 2 s) and starts the stream without a reconnect.
     */
    @Test
    void aStartWhoseNotificationWasLostIsCaughtUpWhileListening() throws Exception {
        String connection = unique("kafka");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        String topic = unique("lost");
        String schema = unique("s");
        listener.reconcileEvery(Duration.ofSeconds(2));
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            topics.createTopic(topic, 1);
            await().atMost(Duration.ofSeconds(30)).until(() -> listeningSessions() == 1);
            long session = listeningSession();
            // A stream without Kafka (its producers push) never runs a pipeline, here or anywhere.
            String pushed = as(ALICE).body(io.tributary.testing.StreamRequests.with(
                    io.tributary.testing.StreamRequests.with(valid("main." + schema + ".pushed", connection, topic),
                            "source_config.kafka_stream_config", null),
                    "source_config.direct_source_config", java.util.Map.of()).toString()).post(STREAMS).then()
                    .statusCode(200).extract().jsonPath().getString("stream_id");
            // Another server's create whose notification never went out: the stream does not run here.
            String lost = create("main." + schema + ".lost", connection, topic);
            pipelines.stopHere(lost);
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(pipelines.runsHere(lost))
                    .as("the stream whose start was never announced runs here").isTrue());
            assertThat(listeningSession()).as("no reconnect was needed").isEqualTo(session);
            // Two passes more (every 2 s here): they compare ids and build no spec of a stream that runs here, nor of
            // one seen to push (a spec decrypts secrets and resolves the connection: thousands every minute would be
            // a server's load).
            assertThat(pipelines.runsHere(pushed)).isFalse();
            long specsBefore = catchUp.specsBuilt();
            Thread.sleep(5_000);
            assertThat(catchUp.specsBuilt() - specsBefore).as("specs built by the passes").isZero();
            as(ALICE).delete(STREAMS + "/main." + schema + ".lost").then().statusCode(200);
            as(ALICE).delete(STREAMS + "/main." + schema + ".pushed").then().statusCode(200);
        } finally {
            listener.reconcileEvery(LifecycleListener.RECONCILE);
        }
    }

    private long listeningSession() throws Exception {
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT pid FROM pg_stat_activity WHERE query ILIKE 'LISTEN %' "
                        + "AND datname = current_database()")) {
            assertThat(r.next()).isTrue();
            return r.getLong(1);
        }
    }

    private String create(String name, String connection, String topic) {
        String id = as(ALICE).body(valid(name, connection, topic).toString()).post(STREAMS).then().statusCode(200)
                .extract().jsonPath().getString("stream_id");
        assertThat(pipelines.runsHere(id)).isTrue();
        return id;
    }

    private long listeningSessions() throws Exception {
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'LISTEN %'")) {
            r.next();
            return r.getLong(1);
        }
    }
}
