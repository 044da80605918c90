package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.TableManager;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.CloseableIterator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactionTest {
    @TempDir
    Path dir;

    @Test
    void smallFilesBecomeOneWithTheSameRows() throws Exception {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        String location = tables.defaultLocation("c", "s", "compact");
        PartitionKey p = new PartitionKey("payments", 0);
        DeltaTable table = tables.create(location, TestRows.RICH, Map.of(p, 0L));
        List<GenericRecord> rows = TestRows.rich(60);
        for (int i = 0; i < 6; i++) {
            table.commit(List.of(table.writeDataFile(rows.subList(i * 10, i * 10 + 10))), Map.of(p, new OffsetRange(i * 10L, i * 10L + 10)));
        }
        List<Map<String, Object>> before = IndependentReader.rows(location);
        assertThat(activeFiles(location)).isEqualTo(6);

        Optional<Long> version = table.compact(64L * 1024 * 1024);

        assertThat(version).contains(7L);
        assertThat(activeFiles(location)).isEqualTo(1);
        assertThat(IndependentReader.rows(location)).containsExactlyInAnyOrderElementsOf(before)
                .containsExactlyInAnyOrderElementsOf(rows.stream().map(TestRows::normal).toList());
        assertThat(table.positions()).containsExactly(Map.entry(p, 60L));
        assertThat(table.status().numRecords()).isEqualTo(60);
        String commit = Files.readString(dir.resolve("c/s/compact/_delta_log/00000000000000000007.json"));
        assertThat(commit.split("\"remove\"", -1)).hasSize(7);
        assertThat(commit).contains("\"dataChange\":false");

        // Nothing small enough left to merge.
        assertThat(table.compact(64L * 1024 * 1024)).isEmpty();
        // Appends after a compaction still work on top of it.
        table.commit(List.of(table.writeDataFile(TestRows.rich(1))), Map.of());
        assertThat(IndependentReader.rows(location)).hasSize(61);
    }

    private static int activeFiles(String location) throws Exception {
        Engine engine = DefaultEngine.create(new Configuration());
        int n = 0;
        try (CloseableIterator<FilteredColumnarBatch> files = TableManager.loadSnapshot(location).build(engine)
                .getScanBuilder().build().getScanFiles(engine)) {
            while (files.hasNext()) {
                try (CloseableIterator<io.delta.kernel.data.Row> rows = files.next().getRows()) {
                    while (rows.hasNext()) {
                        rows.next();
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /** A stream append that lands while the compaction rewrites files is kept: Kernel rebases the rewrite on it. */
    @Test
    void anAppendDuringCompactionIsNotLost() {
        String root = dir.toString();
        PartitionKey p = new PartitionKey("payments", 0);
        Tables appender = Tables.forWarehouse(root, Optional.empty());
        String location = appender.defaultLocation("c", "s", "busy");
        DeltaTable appending = appender.create(location, TestRows.RICH, Map.of(p, 0L));
        List<GenericRecord> rows = TestRows.rich(40);
        for (int i = 0; i < 3; i++) {
            appending.commit(List.of(appending.writeDataFile(rows.subList(i * 10, i * 10 + 10))), Map.of(p, new OffsetRange(i * 10L, i * 10L + 10)));
        }
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean(true);
        ForwardingStorage appendWhileWriting = new ForwardingStorage() {
            @Override
            public void put(String path, byte[] data) throws java.io.IOException {
                super.put(path, data);
                if (path.endsWith(".parquet") && armed.getAndSet(false)) {
                    appending.commit(List.of(appending.writeDataFile(rows.subList(30, 40))), Map.of(p, new OffsetRange(30, 40)));
                }
            }
        };
        DeltaTable compacting = new KernelTables(new Warehouse(root, Optional.empty()), appendWhileWriting).open(location);

        assertThat(compacting.compact(64L * 1024 * 1024)).contains(5L);

        assertThat(armed).isFalse();
        assertThat(IndependentReader.rows(location)).containsExactlyInAnyOrderElementsOf(rows.stream().map(TestRows::normal).toList());
        assertThat(compacting.positions()).containsExactly(Map.entry(p, 40L));
    }
}
