package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Two servers share a stream's partitions through its consumer group. Each answers GET for the whole stream, so each
 * must report the table's rows and every partition's position, not only what its own pipeline committed.
 */
class StatusAcrossServersTest extends KafkaPipelineHarness {

    @Test
    void eachServerReportsTheRowsAndPositionsTheOtherCommittedToo() {
        topics.createTopic("shared", 2);
        PipelineSpec spec = stream("shared", new Subscription.Topics(List.of("shared")), new SchemaSource.Plain(),
                topics.endOffsets("shared"));
        KafkaStreamFixture.RecordingConsumers consumers = new KafkaStreamFixture.RecordingConsumers();
        StreamPipeline first = start(spec, FAST, consumers);
        StreamPipeline second = start(spec, FAST, consumers);

        // Records until each server has committed some: then the group has split the partitions between them.
        int[] sent = new int[2];
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
            for (int p = 0; p < 2; p++) {
                topics.send("shared", p, null, utf8("v"));
                sent[p]++;
            }
            topics.flush();
            return first.status().rowsIngested() > 0 && second.status().rowsIngested() > 0;
        });
        int total = sent[0] + sent[1];
        awaitRows(spec, total);
        await().atMost(Duration.ofSeconds(30)).until(() -> first.status().rowsIngested()
                + second.status().rowsIngested() == total);
        assertThat(first.status().rowsIngested()).as("each server committed only part of the rows").isLessThan(total);

        StatusRefresh refresh = new StatusRefresh(() -> List.of(first, second));
        for (StreamPipeline server : List.of(first, second)) {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                server.status();
                refresh.round(System.nanoTime());
                IngestionStatus status = server.status();
                assertThat(status.rowsIngested()).isEqualTo(total);
                assertThat(status.partitions()).extracting(s -> s.partition() + "@" + s.committedOffset())
                        .containsExactlyInAnyOrder("0@" + sent[0], "1@" + sent[1]);
                assertThat(status.tableVersion())
                        .isEqualTo(tables.open(spec.tableLocation()).status().version());
            });
        }
        refresh.close();
    }
}
