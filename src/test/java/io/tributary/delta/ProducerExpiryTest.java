package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Table maintenance forgets direct-ingest producers idle since a cutoff (SPEC 11.3): their position domains go in one
 * commit that changes no row; other producers and Kafka partitions stay, and a forgotten producer starts over at 0.
 */
class ProducerExpiryTest {
    static final PartitionKey KAFKA = new PartitionKey("tx", 0);

    @TempDir
    Path dir;

    @Test
    void producersIdleSinceTheCutoffAreForgottenAndNothingElse() throws Exception {
        Tables tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
        String location = tables.defaultLocation("main", "expiry", "tx");
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of(KAFKA, 0L));
        PartitionKey gone = PartitionKey.producer("gone");
        PartitionKey active = PartitionKey.producer("active");
        table.commit(List.of(table.writeDataFile(TestRows.simple("tx", 0, 0, 3))), Map.of(KAFKA, new OffsetRange(0, 3),
                gone, new OffsetRange(0, 1)));
        table.commit(List.of(table.writeDataFile(TestRows.simple("tx", 0, 3, 5))), Map.of(gone, new OffsetRange(1, 2)));
        Thread.sleep(20);
        Instant cutoff = Instant.now();
        Thread.sleep(20);
        table.commit(List.of(table.writeDataFile(TestRows.simple("tx", 0, 5, 6))), Map.of(active, new OffsetRange(0, 1)));
        long before = IndependentReader.version(location);

        assertThat(table.forgetProducersIdleSince(cutoff)).containsExactly("gone");

        assertThat(IndependentReader.version(location)).isEqualTo(before + 1);
        assertThat(IndependentReader.rows(location)).hasSize(6);
        assertThat(IndependentReader.domains(location)).doesNotContainKey(PositionDomains.domain(gone))
                .containsKeys(PositionDomains.domain(active), PositionDomains.domain(KAFKA));
        assertThat(tables.open(location).positions()).containsOnlyKeys(KAFKA, active).containsEntry(KAFKA, 3L)
                .containsEntry(active, 1L);
        // Nothing is idle any more: no commit.
        assertThat(table.forgetProducersIdleSince(cutoff)).isEmpty();
        assertThat(IndependentReader.version(location)).isEqualTo(before + 1);

        // The forgotten producer starts over, as a new one.
        table.commit(List.of(table.writeDataFile(TestRows.simple("tx", 0, 6, 7))), Map.of(gone, new OffsetRange(0, 1)));
        assertThat(tables.open(location).positions()).containsEntry(gone, 1L);
        assertThat(IndependentReader.rows(location)).hasSize(7);
    }
}
