package io.tributary.server;

import static io.tributary.testing.KafkaTestSupport.coordinates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local warehouse stops accepting files under a running stream (a full or read-only disk): the stream says so in
 * its state message, keeps what it committed, and catches up by itself, exactly once, when the disk is writable again.
 * The tests run as root, whom permissions do not stop, so the table directory is made immutable ({@code chattr +i}).
 */
class WarehouseFaultPipelineTest {

    @TempDir
    Path dir;

    @Test
    void unwritableWarehouseThenWritable() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, Map.of());
                KafkaTestSupport topics = new KafkaTestSupport(kafka.bootstrapServers())) {
            Tables tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
            topics.createTopic("disk", 1);
            PipelineSpec spec = KafkaStreamFixture.create(tables, "unwritable",
                    new Subscription.Topics(List.of("disk")), new SchemaSource.Plain(), new SchemaSource.Plain(),
                    topics.endOffsets("disk"), Map.of("bootstrap.servers", kafka.bootstrapServers()));
            Path table = Path.of(spec.tableLocation().replaceFirst("^file:", ""));
            assumeThat(immutable(table, true)).as("chattr works on this file system").isTrue();
            immutable(table, false);

            StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, KafkaStreamFixture.FAST);
            pipeline.start();
            try {
                send(topics, 0, 10);
                await().atMost(Duration.ofSeconds(60)).until(
                        () -> tables.open(spec.tableLocation()).positions().get(new PartitionKey("disk", 0)) == 10);

                immutable(table, true);
                send(topics, 10, 20);
                await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                    IngestionStatus s = pipeline.status();
                    assertThat(s.state()).isEqualTo(IngestionStatus.State.FAILED);
                    assertThat(s.stateMessage()).startsWith("writing the ingestion table")
                            .contains("Operation not permitted");
                });
                assertThat(coordinates(KafkaTestSupport.rows(tables, spec.tableLocation())))
                        .as("what was committed stays committed").hasSize(10);

                immutable(table, false);
                await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
                    assertThat(pipeline.status().state()).isEqualTo(IngestionStatus.State.RUNNING);
                    assertThat(tables.open(spec.tableLocation()).positions().get(new PartitionKey("disk", 0)))
                            .isEqualTo(20);
                });
                List<String> want = new ArrayList<>();
                for (int o = 0; o < 20; o++) {
                    want.add("disk/0/" + o);
                }
                assertThat(coordinates(KafkaTestSupport.rows(tables, spec.tableLocation())))
                        .containsExactlyElementsOf(want);
            } finally {
                immutable(table, false);
                pipeline.stop();
            }
        }
    }

    private static void send(KafkaTestSupport topics, int from, int to) {
        for (int i = from; i < to; i++) {
            topics.send("disk", 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        topics.flush();
    }

    /** chattr +i / -i on the table directory: no new files in it, even for root; true when it took effect. */
    private static boolean immutable(Path table, boolean on) throws Exception {
        Process p = new ProcessBuilder("chattr", on ? "+i" : "-i", table.toString()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (p.waitFor() != 0) {
            return false;
        }
        if (!on) {
            return true;
        }
        try {
            Files.delete(Files.createFile(table.resolve("probe")));
            return false;
        } catch (java.io.IOException e) {
            return true;
        }
    }
}
