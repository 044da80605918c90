package io.tributary.ingest;

import static io.tributary.ingest.MicroBatchTest.rec;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PendingTest {

    private static final PartitionKey T0 = new PartitionKey("t", 0);
    private static final PartitionKey T1 = new PartitionKey("t", 1);
    private static final PartitionKey T2 = new PartitionKey("t", 2);

    private static MicroBatch batch() {
        MicroBatch.Builder b = MicroBatch.builder();
        for (long o = 10; o < 20; o++) {
            b.add(rec("t", 0, o)).add(rec("t", 1, o)).add(rec("t", 2, o * 2));
        }
        return b.build();
    }

    @Test
    void dropsRecordsBelowTheTablesPositionAndWholePartitionsItAlreadyHas() {
        Pending p = Pending.of(batch().partitions(), Map.of(T0, 15L, T1, 20L));
        assertThat(p.partitions.keySet()).containsExactly(T0, T2);
        assertThat(p.partitions.get(T0)).extracting(SourceRecord::offset).containsExactly(15L, 16L, 17L, 18L, 19L);
        assertThat(p.size).isEqualTo(15);
    }

    @Test
    void aRedeliveredBatchLeavesNothing() {
        Pending p = Pending.of(batch().partitions(), Map.of(T0, 20L, T1, 20L, T2, 39L));
        assertThat(p.isEmpty()).isTrue();
    }

    @Test
    void rangesStartAtTheTablesPositionAcrossOffsetGapsOrAtTheFirstRecordOfAnUnknownPartition() {
        Map<PartitionKey, Long> positions = Map.of(T0, 12L, T2, 25L);
        Pending p = Pending.of(batch().partitions(), positions);
        Map<PartitionKey, OffsetRange> ranges = p.ranges(positions, Map.of());
        assertThat(ranges).containsEntry(T0, new OffsetRange(12, 20)).containsEntry(T1, new OffsetRange(10, 20))
                // partition 2 holds even offsets only: 25 is a gap, the first record kept is 26
                .containsEntry(T2, new OffsetRange(25, 39));
        assertThat(p.partitions.get(T2).get(0).offset()).isEqualTo(26);
    }

    @Test
    void splitsIntoNearlyEqualRunsThatTogetherHoldEveryRecordOnceInOrder() {
        Pending p = Pending.of(batch().partitions(), Map.of(T0, 13L));
        for (int parts = 1; parts <= 6; parts++) {
            List<List<List<SourceRecord>>> split = p.split(parts);
            assertThat(split).hasSize(parts);
            List<SourceRecord> all = new ArrayList<>();
            for (List<List<SourceRecord>> part : split) {
                int size = part.stream().mapToInt(List::size).sum();
                assertThat(size).isBetween(p.size / parts - parts, (p.size + parts - 1) / parts);
                part.forEach(all::addAll);
                assertThat(part).allSatisfy(run -> assertThat(run).isNotEmpty()
                        .extracting(SourceRecord::partition).containsOnly(run.get(0).partition()));
            }
            List<SourceRecord> expected = new ArrayList<>();
            p.partitions.values().forEach(expected::addAll);
            assertThat(all).containsExactlyElementsOf(expected);
        }
        assertThat(Pending.of(batch().partitions(), Map.of()).split(40)).as("never an empty part").hasSize(30);
    }
}
