package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one micro-batch added to the table. {@code committed} holds the records that landed (views of the batch, for
 * freshness metrics); {@code positions} are the table's positions after the commit as far as this writer knows them.
 * {@code recreations} are the topics this batch found deleted and created again (their positions were reset to the
 * new topic's beginning); {@code reread} are the partitions whose records the runtime must read again from the table's
 * positions, because the batch's records of them belonged to a topic that is gone. {@code lost} are the partitions
 * whose offsets this batch found deleted from Kafka before they were read (see {@link IngestionStatus.LostOffsets}).
 */
public record CommitResult(
        long tableVersion,
        Instant committedAt,
        long rows,
        long bytes,
        long decodeFailures,
        long commitNanos,
        Map<PartitionKey, Long> positions,
        Collection<List<SourceRecord>> committed,
        List<IngestionStatus.TopicRecreation> recreations,
        Set<PartitionKey> reread,
        List<IngestionStatus.LostOffsets> lost) {

    public CommitResult(long tableVersion, Instant committedAt, long rows, long bytes, long decodeFailures,
            long commitNanos, Map<PartitionKey, Long> positions, Collection<List<SourceRecord>> committed,
            List<IngestionStatus.TopicRecreation> recreations, Set<PartitionKey> reread) {
        this(tableVersion, committedAt, rows, bytes, decodeFailures, commitNanos, positions, committed, recreations,
                reread, List.of());
    }

    public CommitResult(long tableVersion, Instant committedAt, long rows, long bytes, long decodeFailures,
            long commitNanos, Map<PartitionKey, Long> positions, Collection<List<SourceRecord>> committed) {
        this(tableVersion, committedAt, rows, bytes, decodeFailures, commitNanos, positions, committed, List.of(),
                Set.of());
    }
}
