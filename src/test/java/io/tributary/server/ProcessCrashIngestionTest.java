package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import io.tributary.testing.KafkaTestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real process crash: the server pipeline runs in a child JVM ({@link PipelineProcess}) and is killed with SIGKILL
 * again and again while it catches up on a backlog and keeps up with a steady flow, each time at a different moment
 * after its first commit (decoding, writing parallel Parquet files, committing, checkpointing). A last child catches
 * up; the table, read with Kernel's scan, then holds exactly the produced records: no gap, no duplicate.
 */
class ProcessCrashIngestionTest {

    private static final String TOPIC = "crash";
    private static final int PARTITIONS = 3;
    /** bench/faults/run.sh raises both (10 kills, 200k records); the suite keeps to its budget. */
    private static final int KILLS = Integer.getInteger("tributary.crash.kills", 4);
    private static final int BACKLOG = 60_000;
    private static final int STEADY_PER_SECOND = 2_000;
    /** On a loaded machine a child takes long to start: the steady flow stops here so the last catch-up stays short. */
    private static final int MAX_RECORDS = Integer.getInteger("tributary.crash.records", 120_000);

    @TempDir
    Path dir;

    @Test
    void sigkillWhileWritingAndCommittingLosesAndDoublesNothing() throws Exception {
        Path log = dir.resolve("pipeline.log");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, Map.of());
                KafkaTestSupport topics = new KafkaTestSupport(kafka.bootstrapServers())) {
            topics.createTopic(TOPIC, PARTITIONS);
            String warehouse = dir.resolve("warehouse").toString();
            Tables tables = Tables.forWarehouse(warehouse, Optional.empty());
            String location = tables.defaultLocation("main", "test", "crash");
            StreamSchema schema = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
                    SideSchema.compile(new SchemaSource.JsonSchema(PipelineProcess.JSON_SCHEMA), "payload_schema"));
            tables.create(location, schema.rowSchema(), topics.endOffsets(TOPIC));

            AtomicLong produced = new AtomicLong();
            AtomicBoolean producing = new AtomicBoolean(true);
            Thread producer = new Thread(() -> produce(topics, produced, producing), "crash-test-producer");
            producer.start();

            Random moments = new Random(20261130);
            List<String> kills = new ArrayList<>();
            try {
                for (int kill = 0; kill < KILLS; kill++) {
                    long before = tables.open(location).status().version();
                    long spawned = System.nanoTime();
                    Process child = PipelineProcess.spawn(log, kafka.bootstrapServers(), warehouse, location, TOPIC,
                            PARTITIONS);
                    try {
                        awaitOrFail(child, log, 60, () -> tables.open(location).status().version() > before,
                                () -> "kills so far " + kills);
                        // A different moment of the child's work every time: its next batches are being decoded,
                        // written and committed meanwhile.
                        long delay = moments.nextInt(600);
                        Thread.sleep(delay);
                        kills.add(String.format("v%d->v%d, first commit after %.1f s, killed %d ms later", before,
                                tables.open(location).status().version(), (System.nanoTime() - spawned) / 1e9 - delay
                                / 1e3, delay));
                    } finally {
                        child.destroyForcibly();
                        child.waitFor();
                    }
                    assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(137);
                }
            } finally {
                producing.set(false);
                producer.join();
            }
            topics.flush();
            Map<PartitionKey, Long> end = topics.endOffsets(TOPIC);
            assertThat(end.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(produced.get());

            Process last = PipelineProcess.spawn(log, kafka.bootstrapServers(), warehouse, location, TOPIC,
                    PARTITIONS);
            try {
                awaitOrFail(last, log, 90, () -> tables.open(location).positions().equals(end),
                        () -> "positions " + tables.open(location).positions() + ", end " + end + ", kills " + kills);
            } finally {
                last.destroyForcibly();
                last.waitFor();
            }

            List<Map<String, Object>> rows = KafkaTestSupport.rows(tables, location);
            List<String> expected = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                for (long o = 0; o < end.get(new PartitionKey(TOPIC, p)); o++) {
                    expected.add(TOPIC + "/" + p + "/" + o);
                }
            }
            assertThat(KafkaTestSupport.coordinates(rows)).as("kills %s", kills).containsExactlyElementsOf(expected);
            // Each produced record once, with its own value: nothing was mixed up between files of one commit.
            assertThat(rows.stream().map(r -> (Long) ((Map<?, ?>) r.get("value")).get("id")).sorted().toList())
                    .containsExactlyElementsOf(Stream.iterate(0L, i -> i + 1).limit(produced.get()).toList());
            assertThat(rows).allSatisfy(r -> assertThat(r.get("key")).isEqualTo(
                    "k" + ((Map<?, ?>) r.get("value")).get("id")));
            System.out.printf("%d records, %d kills (%s), %d data files on disk%n", produced.get(), kills.size(),
                    kills, dataFiles(dir.resolve("warehouse")));
        }
    }

    /** A backlog first (large batches, parallel files), then a steady flow until the kills are done. */
    private static void produce(KafkaTestSupport topics, AtomicLong produced, AtomicBoolean producing) {
        long started = System.nanoTime();
        long i = 0;
        while (i < BACKLOG || (producing.get() && i < MAX_RECORDS)) {
            if (i >= BACKLOG) {
                long due = started + (i - BACKLOG) * 1_000_000_000L / STEADY_PER_SECOND;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    try {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            } else if (i == BACKLOG - 1) {
                started = System.nanoTime();
            }
            String value = "{\"id\":" + i + ",\"name\":\"n" + i + "\"}";
            topics.send(TOPIC, (int) (i % PARTITIONS), ("k" + i).getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8));
            i++;
            produced.set(i);
        }
    }

    private static void awaitOrFail(Process child, Path log, int seconds, BooleanSupplier condition,
            java.util.function.Supplier<String> state) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (!child.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError((child.isAlive() ? "no progress" : "the pipeline process died")
                        + " (" + state.get() + "); its log:\n" + tail(log));
            }
            Thread.sleep(20);
        }
    }

    private static String tail(Path log) throws Exception {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }

    private static long dataFiles(Path warehouse) throws Exception {
        try (Stream<Path> files = Files.walk(warehouse)) {
            return files.filter(f -> f.toString().endsWith(".parquet") && !f.toString().contains("_delta_log"))
                    .count();
        }
    }
}
