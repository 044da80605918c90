package io.tributary.server;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.testing.KafkaTestSupport;
import io.tributary.testing.RegistryBehindProxy;
import io.tributary.testing.TcpProxy;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A running stream while the registry database is away for 30 s (partitioned for half of it, refused for the other
 * half). Its commits need the database (the write fence), so it pauses: FAILED, saying the registry database cannot
 * be reached, never hung on a dead connection. Records produced meanwhile land exactly once when the database is
 * back, with no restart and nothing done by hand, and the stream is RUNNING again.
 */
@Tag("quarkus")
@QuarkusTest
@TestProfile(RegistryBehindProxy.class)
class RegistryOutageIngestionTest {
    @Inject
    Tables tables;
    @Inject
    ServerPipelines pipelines;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @AfterEach
    void databaseBack() {
        RegistryBehindProxy.proxy().mode(TcpProxy.Mode.FORWARD);
    }

    @Test
    void streamsRideOutTheOutage() throws Exception {
        String connection = unique("outage");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        String topic = unique("outage_topic");
        String schema = unique("s");
        String name = "main." + schema + ".events";
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            topics.createTopic(topic, 2);
            String id = as(ALICE).body(valid(name, connection, topic).toString())
                    .post("/api/2.0/feature-engineering/streams").then().statusCode(200).extract().path("stream_id");
            String location = tables.defaultLocation("main", schema, "events_ingestion");
            send(topics, topic, 0, 20);
            await().atMost(Duration.ofSeconds(60)).until(() -> KafkaTestSupport.rows(tables, location).size() == 20);

            // Commits run under the write fence in the registry database: without it they wait, and the stream says
            // why instead of hanging on the partitioned connection (pgjdbc's socket timeout, 4 s in this profile).
            RegistryBehindProxy.proxy().mode(TcpProxy.Mode.BLACKHOLE);
            long partitionedAt = System.nanoTime();
            send(topics, topic, 20, 40);
            awaitWaitingForTheDatabase(id);
            // Nothing is committed without the fence, for the rest of the partition's 15 s.
            Duration left = Duration.ofMillis(Math.max(1, 15_000 - (System.nanoTime() - partitionedAt) / 1_000_000));
            awaitNoCommit("while the database is partitioned", location, left);
            RegistryBehindProxy.proxy().mode(TcpProxy.Mode.REFUSE);
            send(topics, topic, 40, 60);
            // A refused database for as long as the partition lasted: the outage's length is the point here.
            awaitNoCommit("while the database refuses connections", location, Duration.ofSeconds(15));
            // Between retries the pipeline starts a session (RUNNING) until its next write meets the refused fence,
            // so the state is FAILED most of the time, not at every instant.
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                    .until(() -> pipelines.status(id).orElseThrow().state() == IngestionStatus.State.FAILED);
            RegistryBehindProxy.proxy().mode(TcpProxy.Mode.FORWARD);
            send(topics, topic, 60, 80);

            await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
                assertThat(KafkaTestSupport.rows(tables, location)).hasSize(80);
                assertThat(as(ALICE).get("/api/2.0/feature-engineering/streams/" + name).then().statusCode(200)
                        .extract().jsonPath().getString("state")).isEqualTo("RUNNING");
            });
            List<String> want = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                for (int o = 0; o < 40; o++) {
                    want.add(topic + "/" + p + "/" + o);
                }
            }
            assertThat(KafkaTestSupport.coordinates(KafkaTestSupport.rows(tables, location)))
                    .containsExactlyElementsOf(want);
            as(ALICE).delete("/api/2.0/feature-engineering/streams/" + name).then().statusCode(200);
        }
    }

    /** The table keeps the 20 rows committed before the outage for all of {@code period}. */
    private void awaitNoCommit(String when, String location, Duration period) {
        await("no commit " + when).during(period).atMost(period.plusSeconds(10)).pollInterval(Duration.ofMillis(500))
                .until(() -> tables.open(location).status().numRecords() == 20);
    }

    private void awaitWaitingForTheDatabase(String id) {
        await().atMost(Duration.ofSeconds(14)).untilAsserted(() -> {
            IngestionStatus s = pipelines.status(id).orElseThrow();
            assertThat(s.state()).isEqualTo(IngestionStatus.State.FAILED);
            assertThat(s.stateMessage()).startsWith("the registry database cannot be reached for the stream's write lock");
        });
    }

    private static void send(KafkaTestSupport topics, String topic, int from, int to) {
        for (int i = from; i < to; i++) {
            topics.send(topic, i % 2, null, ("{\"id\": \"e" + i + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        topics.flush();
    }
}
