package io.tributary.server;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.testing.Latches;
import io.tributary.testing.TestFiles;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.delta.PausingTables;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.lock.StreamWriteLocks;
import io.tributary.testing.KafkaTestSupport;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC 2.3 with two servers on one registry and one warehouse: a delete on this server stops only its own pipeline,
 * and the other server's is told later (the lifecycle channel). Its commits are fenced by the stream's write lock, so
 * a batch it was writing when the delete ran commits nothing, its data file does not stay under the deleted location,
 * and the pipeline stops saying why. The "other server" is a pipeline built here, directly against the same registry
 * database and warehouse, that the delete does not know of.
 */
@Tag("quarkus")
@QuarkusTest
class DeleteOnAnotherServerTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";

    @Inject
    ServerPipelines pipelines;
    @Inject
    StreamDirectory directory;
    @Inject
    StreamWriteLocks writeLocks;
    @Inject
    Tables tables;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @ConfigProperty(name = "tributary.warehouse")
    String warehouse;

    @Test
    void aBatchTheOtherServerWroteDuringTheDeleteLeavesNothingUnderTheDeletedLocationAndItsPipelineStops()
            throws Throwable {
        String connection = unique("kafka");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        String topic = unique("fence");
        String schema = unique("s");
        String name = "main." + schema + ".orders";
        String location = tables.defaultLocation("main", schema, "orders_ingestion");
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            topics.createTopic(topic, 1);
            String id = as(ALICE).body(valid(name, connection, topic).toString()).post(STREAMS).then()
                    .statusCode(200).extract().jsonPath().getString("stream_id");
            // The stream runs on the other server only: this one's delete stops nothing that writes.
            pipelines.stopHere(id);
            PipelineSpec spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(id)).orElseThrow();

            AtomicBoolean armed = new AtomicBoolean();
            CountDownLatch paused = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            Tables otherWarehouse = PausingTables.beforeDataFileWrites(warehouse, () -> {
                if (armed.get() && paused.getCount() > 0) {
                    paused.countDown();
                    Latches.awaitRelease(resume);
                }
            });
            PipelineStatus status = new PipelineStatus();
            StreamPipeline otherServer = new StreamPipeline(spec, KafkaStreamFixture.FAST,
                    new TableIngesters(otherWarehouse, s -> writeLocks.forStream(s.streamId(), s.tableLocation())),
                    status, new PipelineMetrics(new SimpleMeterRegistry(), spec.streamName(), status));
            try {
                otherServer.start();
                send(topics, topic, 5);
                await().atMost(Duration.ofSeconds(60)).until(() -> otherServer.status().rowsIngested() == 5);

                // Its next batch stops at its data file: the stream's rows are read, the file not yet written.
                armed.set(true);
                send(topics, topic, 5);
                assertThat(paused.await(60, TimeUnit.SECONDS)).isTrue();
                as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
                assertThat(TestFiles.under(location)).isEmpty();

                resume.countDown();
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> otherServer.status().state() == IngestionStatus.State.FAILED);
                assertThat(TestFiles.under(location)).as("the file written after the delete was removed").isEmpty();
                assertThat(tables.exists(location)).isFalse();
                assertThat(otherServer.status().stateMessage()).contains("the stream was deleted");
                assertThat(otherServer.activate()).as("a deleted stream's pipeline does not start again").isFalse();

                send(topics, topic, 5);
                await("nothing lands after the delete").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
                        .until(() -> TestFiles.under(location).isEmpty());
                assertThat(otherServer.status().rowsIngested()).isEqualTo(5);
            } finally {
                resume.countDown();
                otherServer.stop();
            }
        }
    }

    private static void send(KafkaTestSupport topics, String topic, int n) {
        for (int i = 0; i < n; i++) {
            topics.send(topic, 0, null, ("{\"id\": \"r-" + i + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        topics.flush();
    }
}
