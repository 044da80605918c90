package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.testing.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Vacuum on a local warehouse and on S3 (S3Proxy, whose filesystem store reports a file's modification time as the
 * object's Last-Modified, so ages are set on the real files). One table: four appends, a compaction that removes their
 * four files, an append after it, and files no commit references (a killed writer's), old and fresh.
 */
class VacuumTest {
    private static final String BUCKET = "vacuum";
    private static final Duration WEEK = Duration.ofDays(7);
    private static final PartitionKey P = new PartitionKey("t", 0);

    @TempDir
    static Path dir;
    static S3ProxyServer s3;

    @BeforeAll
    static void startS3() {
        s3 = S3ProxyServer.start(dir.resolve("s3")).exportCredentials();
        s3.createBucket(BUCKET);
    }

    @AfterAll
    static void stopS3() {
        if (s3 != null) {
            s3.close();
        }
    }

    /** Where a table's files are, as plain files on disk, for listing and setting their age. */
    private record Files_(Path tableDir) {
        Set<String> all() throws IOException {
            Set<String> out = new TreeSet<>();
            try (Stream<Path> files = Files.walk(tableDir)) {
                files.filter(Files::isRegularFile).forEach(f -> out.add(tableDir.relativize(f).toString()));
            }
            return out;
        }

        Set<String> data() throws IOException {
            Set<String> out = new TreeSet<>(all());
            out.removeIf(n -> n.startsWith("_delta_log/"));
            return out;
        }

        void age(String name, Duration by) throws IOException {
            Files.setLastModifiedTime(tableDir.resolve(name), FileTime.from(Instant.now().minus(by)));
        }
    }

    @Test
    void localWarehouse() throws Exception {
        String root = dir.resolve("local").toString();
        Tables tables = Tables.forWarehouse(root, Optional.empty());
        String location = tables.defaultLocation("c", "s", "vac");
        check(new KernelTables(new Warehouse(root, Optional.empty()), new RoutingStorage(() -> {
            throw new AssertionError("no S3 here");
        })), location, new Files_(dir.resolve("local/c/s/vac")));
    }

    @Test
    void s3Warehouse() throws Exception {
        Warehouse warehouse = new Warehouse("s3://" + BUCKET + "/wh", Optional.of(s3.endpoint()));
        KernelTables tables = new KernelTables(warehouse, new RoutingStorage(() -> new S3Storage(S3Clients.create(warehouse))));
        String location = tables.defaultLocation("c", "s", "vac");
        assertThat(location).startsWith("s3://");
        check(tables, location, new Files_(dir.resolve("s3/s3proxy-data/" + BUCKET + "/wh/c/s/vac")));
    }

    private static void check(KernelTables tables, String location, Files_ files) throws Exception {
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of(P, 0L));
        for (int i = 0; i < 4; i++) {
            table.commit(List.of(table.writeDataFile(TestRows.simple("t", 0, i * 10, i * 10 + 10))),
                    Map.of(P, new OffsetRange(i * 10, i * 10 + 10)));
        }
        Set<String> appended = files.data();
        assertThat(appended).hasSize(4);
        assertThat(table.compact(64L << 20)).contains(5L);
        table.commit(List.of(table.writeDataFile(TestRows.simple("t", 0, 40, 50))), Map.of(P, new OffsetRange(40, 50)));
        Set<String> live = new TreeSet<>(files.data());
        live.removeAll(appended);
        assertThat(live).as("the compacted file and the append after it").hasSize(2);
        String oldOrphan = table.writeDataFile(TestRows.simple("t", 0, 50, 60)).path();
        String freshOrphan = table.writeDataFile(TestRows.simple("t", 0, 50, 60)).path();
        // Everything but the fresh orphan was written more than the retention ago; the log keeps its real times, so
        // the compaction's remove actions are within the retention.
        for (String name : files.data()) {
            if (!name.equals(freshOrphan)) {
                files.age(name, Duration.ofDays(8));
            }
        }
        Set<String> log = new TreeSet<>(files.all());
        log.removeAll(files.data());
        List<String> latestBefore = coordinates(read(tables, location, -1));
        assertThat(latestBefore).hasSize(50);
        assertThat(coordinates(read(tables, location, 4))).hasSize(40);

        TableUpkeep.VacuumResult first = table.vacuum(WEEK);

        assertThat(first.filesDeleted()).isEqualTo(1);
        assertThat(first.bytesDeleted()).isPositive();
        Set<String> kept = new TreeSet<>(appended);
        kept.addAll(live);
        kept.add(freshOrphan);
        assertThat(files.data()).as("only the old orphan goes").containsExactlyInAnyOrderElementsOf(kept)
                .doesNotContain(oldOrphan);
        assertThat(coordinates(read(tables, location, -1))).containsExactlyElementsOf(latestBefore);
        assertThat(coordinates(read(tables, location, 4))).as("time travel to before the compaction (within the"
                + " retention)").containsExactlyElementsOf(latestBefore.subList(0, 40));

        // Eight days on, the compaction's removes and the once fresh orphan are past the retention too.
        TableUpkeep.VacuumResult later = new TableVacuum(tables, tables.qualify(location))
                .run(WEEK, System.currentTimeMillis() + Duration.ofDays(8).toMillis());

        assertThat(later.filesDeleted()).isEqualTo(5);
        assertThat(files.data()).containsExactlyInAnyOrderElementsOf(live);
        Set<String> logAfter = new TreeSet<>(files.all());
        logAfter.removeAll(files.data());
        assertThat(logAfter).as("the log is never touched").containsExactlyInAnyOrderElementsOf(log);
        assertThat(coordinates(read(tables, location, -1))).containsExactlyElementsOf(latestBefore);
        assertThat(tables.open(location).positions()).containsExactly(Map.entry(P, 50L));
        // Nothing left to do.
        assertThat(table.vacuum(WEEK).filesDeleted()).isZero();
    }

    @Test
    void aRetentionUnderAnHourIsRefused() {
        Tables tables = Tables.forWarehouse(dir.resolve("short").toString(), Optional.empty());
        String location = tables.defaultLocation("c", "s", "short");
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of());
        assertThatThrownBy(() -> table.vacuum(Duration.ofMinutes(59))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minimum of PT1H");
    }

    @Test
    void onlyDataFilesAndOurOwnTempFilesAreCandidates() {
        assertThat(TableVacuum.isData("part-00000-a-c000.snappy.parquet")).isTrue();
        assertThat(TableVacuum.isData("date=2026-01-01/part-1.parquet")).isTrue();
        assertThat(TableVacuum.isData(".part-1.parquet.0f1e.tmp")).isTrue();
        assertThat(TableVacuum.isData("_delta_log/00000000000000000000.json")).isFalse();
        assertThat(TableVacuum.isData("_delta_log/_last_checkpoint")).isFalse();
        assertThat(TableVacuum.isData("_change_data/cdc-1.parquet")).isFalse();
        assertThat(TableVacuum.isData(".hidden/part-1.parquet")).isFalse();
        assertThat(TableVacuum.isData("_SUCCESS")).isFalse();
        assertThat(TableVacuum.isData(".part-1.parquet.crc")).isFalse();
        assertThat(TableVacuum.isData("deletion_vector_0f1e.bin")).isFalse();
    }

    /** {@code version} -1: the latest. Read with Kernel's scan through the table's own engine (local or S3). */
    private static List<Map<String, Object>> read(KernelTables tables, String location, long version) {
        String path = tables.qualify(location);
        List<Map<String, Object>> out = new ArrayList<>();
        try (TableReader r = new TableReader(tables.engine(), version < 0 ? tables.latest(path) : tables.at(path, version))) {
            r.forEachRemaining(row -> out.add(TestRows.normalRead(row)));
        }
        return out;
    }

    private static List<String> coordinates(List<Map<String, Object>> rows) {
        return rows.stream().map(r -> String.format("%s/%05d", r.get("kafka_partition"), (Long) r.get("kafka_offset")))
                .sorted().toList();
    }
}
