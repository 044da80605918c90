package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Commits whose outcome the writer does not learn: the log must end up with the commit exactly once. */
class CommitRecoveryTest {
    @TempDir
    Path dir;

    /** Writes the commit file, then reports a failure, like a PUT whose response was lost. */
    private static final class LostResponses extends ForwardingStorage {
        final AtomicInteger toLose = new AtomicInteger();

        @Override
        public void putIfAbsent(String path, byte[] data) throws IOException {
            super.putIfAbsent(path, data);
            if (path.endsWith(".json") && toLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IOException("connection reset (after the write landed)");
            }
        }
    }

    @Test
    void aCommitWhoseResponseWasLostIsFoundNotRepeated() {
        LostResponses storage = new LostResponses();
        KernelTables tables = new KernelTables(new Warehouse(dir.toString(), Optional.empty()), storage);
        String location = tables.defaultLocation("c", "s", "lost");
        PartitionKey p = new PartitionKey("t", 0);
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of(p, 0L));

        storage.toLose.set(1);
        long version = table.commit(List.of(table.writeDataFile(TestRows.simple("t", 0, 0, 10))), Map.of(p, new OffsetRange(0, 10)));
        assertThat(version).isEqualTo(1);
        // Without ranges the data file's name identifies the commit.
        storage.toLose.set(1);
        long second = table.commit(List.of(table.writeDataFile(TestRows.simple("u", 0, 0, 3))), Map.of());
        assertThat(second).isEqualTo(2);

        assertThat(IndependentReader.version(location)).isEqualTo(2);
        assertThat(table.positions()).containsExactly(Map.entry(p, 10L));
        assertThat(IndependentReader.rows(location)).hasSize(13);
    }
}
