package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table with more position domains than {@link KernelTables#CHECKSUM_MAX_DOMAINS} (a stream over thousands of
 * partitions, a direct stream with thousands of producers) commits without Kernel's version checksum, whose writing
 * grows with the square of the domains (bench/domains: 0.4–0.8 s a commit at 2,000); its positions read the same.
 */
class ManyDomainsTest {
    @TempDir
    Path dir;

    private Tables tables() {
        return Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
    }

    private DeltaTable create(Tables tables, String name, int partitions) {
        Map<PartitionKey, Long> start = new HashMap<>();
        for (int i = 0; i < partitions; i++) {
            start.put(new PartitionKey("t", i), 0L);
        }
        return tables.create(tables.defaultLocation("main", "many", name), TestRows.SIMPLE, start);
    }

    private Path checksum(String name, long version) {
        return dir.resolve("warehouse/main/many/" + name + "/_delta_log/" + String.format("%020d.crc", version));
    }

    @Test
    void aTableOfManyDomainsCommitsWithoutAChecksumAndReadsItsPositionsTheSame() {
        int partitions = KernelTables.CHECKSUM_MAX_DOMAINS + 1;
        Tables tables = tables();
        DeltaTable table = create(tables, "wide", partitions);
        PartitionKey p = new PartitionKey("t", 7);
        long version = table.commit(List.of(table.writeDataFile(TestRows.simple("t", 7, 0, 5))),
                Map.of(p, new OffsetRange(0, 5)));

        assertThat(checksum("wide", version)).doesNotExist();
        DeltaTable again = tables().open(tables.defaultLocation("main", "many", "wide"));
        Map<PartitionKey, Long> positions = again.positions();
        assertThat(positions).hasSize(partitions).containsEntry(p, 5L).containsEntry(new PartitionKey("t", 8), 0L);
    }

    @Test
    void aTableOfFewDomainsKeepsItsChecksums() {
        Tables tables = tables();
        DeltaTable table = create(tables, "narrow", 6);
        long version = table.commit(List.of(table.writeDataFile(TestRows.simple("t", 1, 0, 3))),
                Map.of(new PartitionKey("t", 1), new OffsetRange(0, 3)));

        assertThat(checksum("narrow", version)).exists();
        assertThat(Files.exists(checksum("narrow", 0))).isTrue();
    }
}
