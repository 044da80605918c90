package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream's status (the API's GET on a process that does not run its pipeline: every GET on AWS) comes from one read
 * of the table's log, and a version already summed is not walked again. Each read of the log is a listing and several
 * object GETs on S3; the GET read it three times (open, status, positions) and walked every live file each time.
 */
class TableSummaryTest {
    @TempDir
    Path dir;

    /** Storage that records what is read of the tables' logs. */
    static final class CountingStorage extends ForwardingStorage {
        final List<String> listings = new ArrayList<>();
        final List<String> logReads = new ArrayList<>();

        @Override
        public List<Entry> listFrom(String path) throws IOException {
            if (path.contains("/_delta_log/")) {
                listings.add(path);
            }
            return super.listFrom(path);
        }

        @Override
        public byte[] read(String path) throws IOException {
            if (path.contains("/_delta_log/")) {
                logReads.add(path);
            }
            return super.read(path);
        }

        @Override
        public SeekableStream openSeekable(String path, long knownLength) throws IOException {
            if (path.contains("/_delta_log/")) {
                logReads.add(path);
            }
            return super.openSeekable(path, knownLength);
        }

        void reset() {
            listings.clear();
            logReads.clear();
        }
    }

    @Test
    void aSummaryReadsTheLogOnceAndAgreesWithStatusAndPositions() {
        CountingStorage storage = new CountingStorage();
        Tables tables = new KernelTables(new Warehouse(dir.toString(), Optional.empty()), storage);
        String location = tables.defaultLocation("main", "s", "events");
        PartitionKey p0 = new PartitionKey("t", 0);
        PartitionKey p1 = new PartitionKey("t", 1);
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of(p0, 0L, p1, 0L));
        table.commit(List.of(table.writeDataFile(TestRows.simple("t", 0, 0, 10))), Map.of(p0, new OffsetRange(0, 10)));
        table.commit(List.of(table.writeDataFile(TestRows.simple("t", 1, 0, 7))), Map.of(p1, new OffsetRange(0, 7)));

        storage.reset();
        TableSnapshot.Summary summary = tables.summary(location);
        assertThat(storage.listings).hasSize(1);
        List<String> firstReads = List.copyOf(storage.logReads);

        assertThat(summary.status().version()).isEqualTo(2);
        assertThat(summary.status().numRecords()).isEqualTo(17);
        assertThat(summary.status()).isEqualTo(table.status());
        assertThat(summary.positions()).isEqualTo(table.positionDetails());
        assertThat(summary.positions().get(p0).next()).isEqualTo(10);
        assertThat(summary.positions().get(p1).next()).isEqualTo(7);

        // Nothing committed since: the same version's rows are known, so only what names the version is read.
        storage.reset();
        assertThat(tables.summary(location)).isEqualTo(summary);
        assertThat(storage.listings).hasSize(1);
        assertThat(storage.logReads).hasSizeLessThan(firstReads.size());

        // A new version is summed again, never answered from the one before.
        table.commit(List.of(table.writeDataFile(TestRows.simple("t", 0, 10, 15))), Map.of(p0, new OffsetRange(10, 15)));
        TableSnapshot.Summary after = tables.summary(location);
        assertThat(after.status().version()).isEqualTo(3);
        assertThat(after.status().numRecords()).isEqualTo(22);
        assertThat(after.positions().get(p0).next()).isEqualTo(15);
        assertThat(tables.open(location).status()).isEqualTo(after.status());
    }

    /** A stream deleted and created again under its name gets a new table at the same path, with the same versions. */
    @Test
    void aTableCreatedAgainAtThePathIsNotAnsweredWithTheOldOnesStatus() {
        Tables tables = new KernelTables(new Warehouse(dir.toString(), Optional.empty()), new CountingStorage());
        String location = tables.defaultLocation("main", "s", "again");
        PartitionKey p0 = new PartitionKey("t", 0);
        DeltaTable first = tables.create(location, TestRows.SIMPLE, Map.of(p0, 0L));
        first.commit(List.of(first.writeDataFile(TestRows.simple("t", 0, 0, 10))), Map.of(p0, new OffsetRange(0, 10)));
        assertThat(tables.summary(location).status().numRecords()).isEqualTo(10);

        tables.delete(location);
        DeltaTable second = tables.create(location, TestRows.SIMPLE, Map.of(p0, 0L));
        second.commit(List.of(second.writeDataFile(TestRows.simple("t", 0, 0, 3))), Map.of(p0, new OffsetRange(0, 3)));
        TableSnapshot.Summary summary = tables.summary(location);
        assertThat(summary.status().version()).isEqualTo(1);
        assertThat(summary.status().numRecords()).isEqualTo(3);
        assertThat(summary.positions().get(p0).next()).isEqualTo(3);
    }
}
