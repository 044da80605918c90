package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Positions with Kafka topic ids: a position without an id adopts the first one committed, a range of another topic
 * id does not continue it, and a reset for a recreated topic replaces exactly the position it was planned against,
 * once, whichever writer gets there first.
 */
class TopicIdPositionsTest {
    static final PartitionKey P = new PartitionKey("tx", 0);

    @TempDir
    Path dir;

    private DeltaTable table() {
        Tables tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
        return tables.create(tables.defaultLocation("main", "ids", "tx"), TestRows.SIMPLE, Map.of(P, 100L));
    }

    @Test
    void aPositionWithoutAnIdAdoptsTheFirstCommittedOneAndKeepsIt() {
        DeltaTable table = table();
        assertThat(table.positionDetails().get(P).topicId()).isEmpty();
        table.commit(List.of(table.writeDataFile(TestRows.simple("tx", 0, 100, 110))),
                Map.of(P, new OffsetRange(100, 110).withTopic("A", false)));
        // A later range that names no id keeps the recorded one.
        table.commit(List.of(table.writeDataFile(TestRows.simple("tx", 0, 110, 112))), Map.of(P, new OffsetRange(110, 112)));

        PartitionPosition at = table.positionDetails().get(P);
        assertThat(at.next()).isEqualTo(112);
        assertThat(at.topicId()).contains("A");
        assertThat(at.recreated()).isEmpty();
        assertThatThrownBy(() -> table.commit(List.of(), Map.of(P, new OffsetRange(112, 120).withTopic("B", false))))
                .isInstanceOf(PositionConflictException.class);
    }

    @Test
    void aResetReplacesThePositionItWasPlannedAgainstExactlyOnce() {
        DeltaTable table = table();
        table.commit(List.of(), Map.of(P, new OffsetRange(100, 100).withTopic("A", false)));
        Instant at = Instant.parse("2026-12-01T10:00:00Z");
        PartitionPosition.Recreation recreation = new PartitionPosition.Recreation(Optional.of("A"), 100, "B", at);

        table.commit(List.of(), Map.of(P, OffsetRange.reset(0, recreation)));
        PartitionPosition reset = table.positionDetails().get(P);
        assertThat(reset.next()).isZero();
        assertThat(reset.topicId()).contains("B");
        assertThat(reset.refill()).isTrue();
        assertThat(reset.recreated()).contains(recreation);

        // A second writer that saw the old position too: its reset no longer applies.
        assertThatThrownBy(() -> table.commit(List.of(), Map.of(P, OffsetRange.reset(0,
                new PartitionPosition.Recreation(Optional.of("A"), 100, "B", Instant.now())))))
                .isInstanceOf(PositionConflictException.class)
                .satisfies(e -> assertThat(((PositionConflictException) e).committed()).containsEntry(P, 0L));

        // The new topic continues from 0; the recreation stays recorded and the refill mark goes.
        table.commit(List.of(table.writeDataFile(TestRows.simple("tx", 0, 0, 5))),
                Map.of(P, new OffsetRange(0, 5).withTopic("B", false)));
        PartitionPosition after = table.positionDetails().get(P);
        assertThat(after.next()).isEqualTo(5);
        assertThat(after.refill()).isFalse();
        assertThat(after.recreated()).contains(recreation);
        assertThatThrownBy(() -> table.commit(List.of(), Map.of(P, new OffsetRange(100, 101).withTopic("A", false))))
                .isInstanceOf(PositionConflictException.class);
    }

    @Test
    void lostOffsetsAreRecordedAddUpAndGoWithTheOldTopicOnAReset() {
        DeltaTable table = table();
        Instant first = Instant.parse("2026-12-01T10:00:00Z");
        table.commit(List.of(table.writeDataFile(TestRows.simple("tx", 0, 140, 150))), Map.of(P,
                new OffsetRange(100, 150).withTopic("A", false).withLost(new OffsetRange.Lost(100, 140, first))));
        assertThat(table.positionDetails().get(P).lost()).contains(new PartitionPosition.Loss(100, 140, 40, first));

        // A commit without a loss keeps the last one; a second loss adds to the total and names its own range.
        table.commit(List.of(), Map.of(P, new OffsetRange(150, 160).withTopic("A", false)));
        Instant second = first.plusSeconds(60);
        table.commit(List.of(), Map.of(P,
                new OffsetRange(160, 170).withTopic("A", false).withLost(new OffsetRange.Lost(160, 165, second))));
        assertThat(table.positionDetails().get(P).lost()).contains(new PartitionPosition.Loss(160, 165, 45, second));

        // A recreated topic starts without the old topic's losses.
        table.commit(List.of(), Map.of(P, OffsetRange.reset(0,
                new PartitionPosition.Recreation(Optional.of("A"), 170, "B", second.plusSeconds(1)))));
        assertThat(table.positionDetails().get(P).lost()).isEmpty();
    }

    @Test
    void anExclusiveCommitKeepsEverythingAPositionRecords() {
        DeltaTable table = table();
        Instant at = Instant.parse("2026-12-01T10:00:00Z");
        table.commit(List.of(), Map.of(P, new OffsetRange(100, 120, 3).withTopic("A", false)
                .withLost(new OffsetRange.Lost(100, 110, at))));
        table.commit(List.of(), Map.of(P, OffsetRange.reset(0,
                new PartitionPosition.Recreation(Optional.of("A"), 120, "B", at.plusSeconds(5)))));
        PartitionPosition before = table.positionDetails().get(P);
        assertThat(before.refill()).isTrue();

        // The backfill merge's commit: it re-sets every position domain so that a stream commit conflicts with it.
        table.commitExclusive(table.status().version(), List.of(table.writeDataFile(TestRows.simple("tx", 0, 0, 3))), Map.of());

        // Before, only the offset and the decode failures survived: the topic id, the refill mark (so a Lambda's
        // refill of the recreated topic ended half-way) and the recreation were dropped.
        assertThat(table.positionDetails().get(P)).isEqualTo(before);
    }
}
