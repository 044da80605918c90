package io.tributary.server;

import static io.tributary.testing.KafkaTestSupport.coordinates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.delta.PartitionKey;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.maintenance.MaintenanceSettings;
import io.tributary.maintenance.TableMaintenance;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Table maintenance next to a real pipeline: while the server's pipeline commits micro-batches from a real broker
 * every 100 ms, two maintainers (a Lambda tick may overlap the next) compact and vacuum the same table in a loop. No
 * row may be lost or doubled, and the positions the table holds must let a new pipeline continue exactly once.
 */
class MaintenanceDuringIngestionTest extends KafkaPipelineHarness {
    private static final int PARTITIONS = 3;

    @Test
    void compactionAndVacuumWhileThePipelineCommitsLoseAndDoubleNothing() throws Exception {
        topics.createTopic("busy", PARTITIONS);
        PipelineSpec spec = KafkaStreamFixture.create(tables, "busy", new Subscription.Topics(List.of("busy")),
                new SchemaSource.Plain(), new SchemaSource.Plain(), topics.endOffsets("busy"),
                Map.of("bootstrap.servers", kafka.bootstrapServers()));
        PipelineSettings small = new PipelineSettings(Duration.ofMillis(100), 200, 64L << 20, Duration.ofSeconds(1));
        TableMaintenance maintenance = new TableMaintenance(tables, new MaintenanceSettings(1 << 20, Duration.ofDays(7)));

        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, small);
        pipeline.start();
        AtomicBoolean maintaining = new AtomicBoolean(true);
        AtomicInteger compactions = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<?>> maintainers = new ArrayList<>();
        try {
            for (int m = 0; m < 2; m++) {
                maintainers.add(pool.submit(() -> {
                    while (maintaining.get()) {
                        if (maintenance.maintain(spec.tableLocation()).compactedVersion().isPresent()) {
                            compactions.incrementAndGet();
                        }
                        Thread.sleep(20);
                    }
                    return null;
                }));
            }
            Map<Integer, Long> produced = produce(0, 40, 75);
            long total = produced.values().stream().mapToLong(Long::longValue).sum();
            List<Map<String, Object>> rows = awaitRows(spec, total);
            await().atMost(Duration.ofSeconds(30)).until(() -> compactions.get() >= 3);
            maintaining.set(false);
            for (Future<?> f : maintainers) {
                f.get(60, TimeUnit.SECONDS); // a maintainer's failure fails the test here
            }
            assertThat(coordinates(rows)).containsExactlyInAnyOrderElementsOf(expected(0, produced));
            assertThat(compactions.get()).isGreaterThanOrEqualTo(3);
            // The table's positions are exactly where Kafka's partitions end.
            Map<PartitionKey, Long> positions = tables.open(spec.tableLocation()).positions();
            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(positions).containsEntry(new PartitionKey("busy", p), produced.get(p));
            }
        } finally {
            maintaining.set(false);
            pipeline.stop();
            pool.shutdownNow();
        }

        // A new pipeline resumes from the compacted table's positions: the next records once, nothing again.
        Map<Integer, Long> before = new HashMap<>();
        tables.open(spec.tableLocation()).positions().forEach((k, v) -> before.put(k.partition(), v));
        Map<Integer, Long> more = produce(0, 4, 25);
        StreamPipeline resumed = KafkaStreamFixture.pipeline(tables, spec, small);
        resumed.start();
        try {
            Map<Integer, Long> end = new HashMap<>();
            before.forEach((p, v) -> end.put(p, v + more.get(p)));
            long total = end.values().stream().mapToLong(Long::longValue).sum();
            List<Map<String, Object>> rows = awaitRows(spec, total);
            assertThat(coordinates(rows)).containsExactlyInAnyOrderElementsOf(expected(0, end));
            maintenance.maintain(spec.tableLocation());
            assertThat(coordinates(KafkaTestSupport.rows(tables, spec.tableLocation())))
                    .containsExactlyInAnyOrderElementsOf(expected(0, end));
            assertThat(tables.dataFiles(spec.tableLocation())).hasSize(1);
        } finally {
            resumed.stop();
        }
    }

    /** Sends {@code rounds} rounds of {@code perRound} records spread over the partitions; returns the count per partition. */
    private static Map<Integer, Long> produce(int from, int rounds, int perRound) throws InterruptedException {
        Map<Integer, Long> counts = new HashMap<>();
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < perRound; i++) {
                int p = i % PARTITIONS;
                topics.send("busy", p, null, ("v" + r + "-" + i).getBytes(StandardCharsets.UTF_8));
                counts.merge(p, 1L, Long::sum);
            }
            topics.flush();
            Thread.sleep(50);
        }
        return counts;
    }

    private static List<Map<String, Object>> awaitRows(PipelineSpec spec, long count) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                .until(() -> KafkaTestSupport.rows(tables, spec.tableLocation()).size() >= count);
        return KafkaTestSupport.rows(tables, spec.tableLocation());
    }

    private static List<String> expected(long from, Map<Integer, Long> to) {
        List<String> out = new ArrayList<>();
        to.forEach((p, end) -> {
            for (long o = from; o < end; o++) {
                out.add("busy/" + p + "/" + o);
            }
        });
        return out;
    }
}
