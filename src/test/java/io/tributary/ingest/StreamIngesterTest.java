package io.tributary.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.testing.TestFiles;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import io.tributary.delta.WriteGuard;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The decode, write and commit step against a real Delta table, read back with Kernel's scan. */
class StreamIngesterTest {

    private static final String JSON = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
            + "\"name\":{\"type\":\"string\"}}}";

    @TempDir
    Path warehouse;
    Tables tables;
    StreamSchema schema;
    String location;

    @BeforeEach
    void createTable() {
        tables = Tables.forWarehouse(warehouse.toString(), Optional.empty());
        schema = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
                SideSchema.compile(new SchemaSource.JsonSchema(JSON), "payload_schema"));
        location = tables.defaultLocation("main", "s", "t");
        tables.create(location, schema.rowSchema(), Map.of(new PartitionKey("t", 0), 0L));
    }

    /** A guard that runs writes while {@code registered} holds, as the registry's does while the stream exists. */
    static WriteGuard whileRegistered(AtomicBoolean registered) {
        return new WriteGuard() {
            @Override
            public <T> Optional<T> run(Supplier<T> write) {
                return registered.get() ? Optional.of(write.get()) : Optional.empty();
            }
        };
    }

    StreamIngester ingester() {
        return new StreamIngester(tables.open(location), schema.rowSchema(), schema.keySide().newDecoder(),
                schema.valueSide().newDecoder());
    }

    static SourceRecord record(int partition, long offset) {
        String value = offset % 10 == 7 ? "{not json" : "{\"id\":" + offset + ",\"name\":\"n" + offset + "\"}";
        return new SourceRecord("t", partition, offset, 1_700_000_000_000L + offset,
                ("k" + offset).getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
    }

    static MicroBatch batch(long from, long to, int... partitions) {
        MicroBatch.Builder b = MicroBatch.builder();
        for (int p : partitions) {
            for (long o = from; o < to; o++) {
                b.add(record(p, o));
            }
        }
        return b.build();
    }

    List<Map<String, Object>> rows() {
        List<Map<String, Object>> out = new ArrayList<>();
        try (TableRows rows = tables.read(location)) {
            rows.forEachRemaining(out::add);
        }
        out.sort((a, b) -> {
            int c = Integer.compare((Integer) a.get("kafka_partition"), (Integer) b.get("kafka_partition"));
            return c != 0 ? c : Long.compare((Long) a.get("kafka_offset"), (Long) b.get("kafka_offset"));
        });
        return out;
    }

    /** Every (partition, offset) in [from, to) exactly once, with the row the record should make. */
    void assertExactly(List<Map<String, Object>> rows, long from, long to, int... partitions) {
        List<String> expected = new ArrayList<>();
        for (int p : partitions) {
            for (long o = from; o < to; o++) {
                expected.add(p + ":" + o);
            }
        }
        assertThat(rows).extracting(r -> r.get("kafka_partition") + ":" + r.get("kafka_offset"))
                .containsExactlyElementsOf(expected);
        for (Map<String, Object> r : rows) {
            long o = (Long) r.get("kafka_offset");
            assertThat(r.get("key")).isEqualTo("k" + o);
            assertThat(r.get("value")).isEqualTo(o % 10 == 7 ? null : Map.of("id", o, "name", "n" + o));
            assertThat(r.get("stream_record_timestamp")).isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L + o));
            assertThat(r.get("record_source")).isEqualTo("stream");
            assertThat(r.get("kafka_topic")).isEqualTo("t");
        }
    }

    @Test
    void oneCommitPerBatchWithDecodedRowsAndUndecodableValuesAsNull() {
        StreamIngester ingester = ingester();
        long before = tables.open(location).status().version();
        CommitResult result = ingester.ingest(batch(0, 50, 0, 1)).orElseThrow();
        assertThat(result.tableVersion()).isEqualTo(before + 1);
        assertThat(result.rows()).isEqualTo(100);
        assertThat(result.decodeFailures()).isEqualTo(10);
        assertThat(result.positions()).containsEntry(new PartitionKey("t", 0), 50L)
                .containsEntry(new PartitionKey("t", 1), 50L);
        assertThat(tables.open(location).positions()).isEqualTo(result.positions());
        assertExactly(rows(), 0, 50, 0, 1);

        // The count is committed with the positions: another process (a restart, the Lambda API) reads it from the
        // table, and a redelivered batch adds none.
        Tables elsewhere = Tables.forWarehouse(warehouse.toString(), Optional.empty());
        assertThat(elsewhere.open(location).status().decodeFailures()).isEqualTo(10);
        ingester.ingest(batch(40, 60, 0)).orElseThrow();
        assertThat(elsewhere.open(location).status().decodeFailures()).isEqualTo(11);
        assertThat(ingester().ingest(batch(0, 60, 0))).isEmpty();
        assertThat(elsewhere.open(location).status().decodeFailures()).isEqualTo(11);
    }

    /**
     * A topic that starts to match a subscribe_pattern after create has no start position: its first batch (from the
     * topic's beginning, as the server's consumer and a TRIM_HORIZON event source mapping read it) lands whole, while
     * the partitions with a position still drop what precedes it; redeliveries of either add nothing.
     */
    @Test
    void aTopicWithoutAPositionLandsFromItsFirstRecordAndOnce() {
        location = tables.defaultLocation("main", "s", "patterned");
        tables.create(location, schema.rowSchema(), Map.of(new PartitionKey("t", 0), 5L));
        MicroBatch.Builder first = MicroBatch.builder();
        for (long o = 0; o < 8; o++) {
            first.add(record(0, o));
        }
        List<SourceRecord> fresh = new ArrayList<>();
        for (long o = 0; o < 6; o++) {
            fresh.add(new SourceRecord("t-new", 0, o, 1_700_000_000_000L + o,
                    ("n" + o).getBytes(StandardCharsets.UTF_8),
                    ("{\"id\":" + o + "}").getBytes(StandardCharsets.UTF_8)));
        }
        fresh.subList(0, 4).forEach(first::add);

        CommitResult result = ingester().ingest(first.build()).orElseThrow();

        assertThat(result.rows()).isEqualTo(3 + 4);
        assertThat(result.positions()).containsEntry(new PartitionKey("t", 0), 8L)
                .containsEntry(new PartitionKey("t-new", 0), 4L);
        MicroBatch.Builder redelivered = MicroBatch.builder();
        fresh.forEach(redelivered::add); // the first four again, and two more
        assertThat(ingester().ingest(redelivered.build()).orElseThrow().rows()).isEqualTo(2);
        assertThat(ingester().ingest(redelivered.build())).isEmpty();
        assertThat(rows()).extracting(r -> r.get("kafka_topic") + ":" + r.get("kafka_offset"))
                .containsExactlyInAnyOrder("t:5", "t:6", "t:7",
                        "t-new:0", "t-new:1", "t-new:2", "t-new:3", "t-new:4", "t-new:5");
    }

    @Test
    void aRedeliveredBatchAddsNothing() {
        StreamIngester ingester = ingester();
        ingester.ingest(batch(0, 30, 0));
        long version = tables.open(location).status().version();
        assertThat(ingester.ingest(batch(0, 30, 0))).isEmpty();
        assertThat(ingester().ingest(batch(10, 30, 0))).as("a fresh writer reads the position from the log").isEmpty();
        assertThat(ingester.ingest(batch(20, 40, 0)).orElseThrow().rows()).isEqualTo(10);
        assertThat(tables.open(location).status().version()).isEqualTo(version + 1);
        assertExactly(rows(), 0, 40, 0);
    }

    @Test
    void aCrashBetweenTheParquetWriteAndTheCommitLosesNothing() {
        StreamIngester crashing = ingester();
        crashing.hook(new StreamIngester.CommitHook() {
            @Override
            public void beforeCommit() {
                throw new Crash();
            }
        });
        assertThatThrownBy(() -> crashing.ingest(batch(0, 40, 0))).isInstanceOf(Crash.class);
        assertThat(rows()).isEmpty();
        // The restarted pipeline reads from the table's position again: the same records, plus newer ones.
        ingester().ingest(batch(0, 60, 0));
        assertExactly(rows(), 0, 60, 0);
    }

    @Test
    void aCrashRightAfterTheCommitDoublesNothing() {
        StreamIngester crashing = ingester();
        crashing.hook(new StreamIngester.CommitHook() {
            @Override
            public void afterCommit() {
                throw new Crash();
            }
        });
        assertThatThrownBy(() -> crashing.ingest(batch(0, 40, 0))).isInstanceOf(Crash.class);
        // Kafka never learnt the batch landed: the restarted consumer delivers it again.
        ingester().ingest(batch(0, 60, 0));
        assertExactly(rows(), 0, 60, 0);
    }

    @Test
    void concurrentWritersWithOverlappingBatchesLandEachRecordOnce() {
        StreamIngester a = ingester();
        StreamIngester b = ingester();
        a.ingest(batch(0, 100, 0, 1));
        // b still believes the table is empty: its commit conflicts, it drops what a wrote and rewrites the rest.
        CommitResult second = b.ingest(batch(50, 150, 0, 1)).orElseThrow();
        assertThat(second.rows()).isEqualTo(100);
        assertThat(a.ingest(batch(100, 160, 0, 1)).orElseThrow().rows()).isEqualTo(20);
        assertExactly(rows(), 0, 160, 0, 1);
    }

    @Test
    void aLargeBatchIsWrittenAsParallelFilesInOneCommit() throws Exception {
        StreamIngester ingester = new StreamIngester(tables.open(location), schema);
        ingester.parallelism(2);
        long before = tables.open(location).status().version();
        long perPartition = StreamIngester.MIN_ROWS_PER_PARALLEL_FILE;
        // Three partitions into two files: the cut falls inside partition 1.
        CommitResult result = ingester.ingest(batch(0, perPartition, 0, 1, 2)).orElseThrow();
        assertThat(result.tableVersion()).isEqualTo(before + 1);
        assertThat(result.rows()).isEqualTo(3 * perPartition);
        assertThat(result.decodeFailures()).as("counted across both files").isEqualTo(3 * perPartition / 10);
        try (var files = java.nio.file.Files.list(Path.of(java.net.URI.create(location.startsWith("file:") ? location
                : Path.of(location).toUri().toString())))) {
            assertThat(files.filter(f -> f.toString().endsWith(".parquet"))).hasSize(2);
        }
        assertExactly(rows(), 0, perPartition, 0, 1, 2);
        assertThat(tables.open(location).status().decodeFailures()).as("per partition, summed over both files")
                .isEqualTo(3 * perPartition / 10);
        // A small batch stays one file.
        ingester.ingest(batch(perPartition, perPartition + 10, 0, 1, 2)).orElseThrow();
        assertExactly(rows(), 0, perPartition + 10, 0, 1, 2);
        assertThat(tables.open(location).status().decodeFailures()).isEqualTo(3 * perPartition / 10 + 3);
    }

    @Test
    void fixedDecodersAreNeverShared() {
        assertThatThrownBy(() -> ingester().parallelism(2)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aStoppedIngesterStartsNoCommit() {
        StreamIngester ingester = ingester();
        ingester.cancel();
        assertThatThrownBy(() -> ingester.ingest(batch(0, 10, 0)))
                .isInstanceOf(java.util.concurrent.CancellationException.class);
        assertThat(rows()).isEmpty();
    }

    @Test
    void theTableHasTheSevenColumnsInOrder() {
        assertThat(tables.columns(location)).extracting(c -> c.name() + " " + c.type()).containsExactly(
                "key string", "value struct<id:bigint,name:string>", "stream_record_timestamp timestamp",
                "record_source string", "kafka_topic string", "kafka_partition int", "kafka_offset bigint");
    }

    static final class Crash extends Error {
        Crash() {
            super("simulated crash");
        }
    }

    /**
     * The stream deleted by another process between two batches: the guard finds it gone, so the batch whose file
     * was already written commits nothing, the file is removed, and no later batch writes under the location again.
     */
    @Test
    void aBatchWhoseGuardFindsTheStreamGoneCommitsNothingAndLeavesNoFile() throws Exception {
        AtomicBoolean registered = new AtomicBoolean(true);
        WriteGuard guard = whileRegistered(registered);
        StreamIngester ingester = new StreamIngester(tables.open(location), schema, guard);
        assertThat(ingester.ingest(batch(0, 10, 0))).isPresent();

        tables.delete(location);
        registered.set(false);
        assertThatThrownBy(() -> ingester.ingest(batch(10, 20, 0))).isInstanceOf(StreamDeletedException.class)
                .hasMessageContaining("the stream was deleted");
        assertThat(TestFiles.regularFilesUnder(location)).as("the batch's file was removed").isEmpty();
        assertThat(tables.exists(location)).isFalse();
        assertThatThrownBy(() -> ingester.ingest(batch(20, 30, 0))).isInstanceOf(StreamDeletedException.class);
        assertThat(TestFiles.regularFilesUnder(location)).isEmpty();
    }

    /**
     * A delete removing the location while a batch's data file is written (only commits hold the guard) fails the
     * write with whatever the storage says; the guard then finds the stream gone, and the batch reports the delete,
     * not a storage fault. Here the location is replaced by a plain file, so every write below it fails.
     */
    @Test
    void aWriteFailingUnderARunningDeleteReportsTheDelete() throws Exception {
        AtomicBoolean registered = new AtomicBoolean(true);
        WriteGuard guard = whileRegistered(registered);
        StreamIngester ingester = new StreamIngester(tables.open(location), schema, guard);
        assertThat(ingester.ingest(batch(0, 10, 0))).isPresent();
        tables.delete(location);
        Path dir = Path.of(location.replaceFirst("^file:", ""));
        Files.createDirectories(dir.getParent());
        Files.writeString(dir, "not a directory");

        assertThatThrownBy(() -> ingester.ingest(batch(10, 20, 0))).as("still registered: a real storage fault")
                .isNotInstanceOf(StreamDeletedException.class).isInstanceOf(RuntimeException.class);
        registered.set(false);
        assertThatThrownBy(() -> ingester.ingest(batch(10, 20, 0))).isInstanceOf(StreamDeletedException.class)
                .satisfies(e -> assertThat(e.getSuppressed()).as("the storage's failure kept").isNotEmpty());
        assertThatThrownBy(() -> ingester.ingest(batch(20, 30, 0))).isInstanceOf(StreamDeletedException.class);
    }

    /** One file of a parallel batch failing: the others are removed, not left as files nobody commits. */
    @Test
    void aParallelBatchWithAFailedFileLeavesNoneOfItsFiles() {
        io.tributary.delta.DeltaTable table = tables.open(location);
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger written = new java.util.concurrent.atomic.AtomicInteger();
        io.tributary.delta.PositionCommits secondFileFails = (io.tributary.delta.PositionCommits)
                java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {io.tributary.delta.PositionCommits.class}, (proxy, method, args) -> {
                            boolean fileWrite = method.getName().startsWith("write");
                            if (fileWrite && writes.incrementAndGet() == 2) {
                                throw new java.io.UncheckedIOException(new java.io.IOException("disk gone"));
                            }
                            try {
                                Object out = method.invoke(table, args);
                                if (fileWrite) {
                                    written.incrementAndGet();
                                }
                                return out;
                            } catch (java.lang.reflect.InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
        StreamIngester ingester = new StreamIngester(secondFileFails, schema);
        ingester.parallelism(3);
        long perPartition = StreamIngester.MIN_ROWS_PER_PARALLEL_FILE;
        assertThatThrownBy(() -> ingester.ingest(batch(0, perPartition, 0, 1, 2))).hasMessageContaining("disk gone");
        assertThat(written.get()).as("the other files were written").isPositive();
        assertThat(TestFiles.regularFilesUnder(location).stream().filter(f -> f.toString().endsWith(".parquet")))
                .as("and removed again").isEmpty();
    }
}
