package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Putting together the {@link CommitResult} of a batch that took several commits (a reset, refill chunks, data). */
final class CommitResults {
    private CommitResults() {}

    /** A commit that only reset positions: no rows. */
    static CommitResult resetOnly(long version, Map<PartitionKey, Long> positions) {
        return new CommitResult(version, Instant.now(), 0, 0, 0, 0, positions, List.of());
    }

    static CommitResult combine(CommitResult a, CommitResult b) {
        List<List<SourceRecord>> committed = new ArrayList<>(a.committed());
        committed.addAll(b.committed());
        List<IngestionStatus.LostOffsets> lost = new ArrayList<>(a.lost());
        lost.addAll(b.lost());
        return new CommitResult(b.tableVersion(), b.committedAt(), a.rows() + b.rows(), a.bytes() + b.bytes(),
                a.decodeFailures() + b.decodeFailures(), a.commitNanos() + b.commitNanos(), b.positions(), committed,
                b.recreations(), b.reread(), List.copyOf(lost));
    }

    static CommitResult withRecreations(CommitResult r, List<IngestionStatus.TopicRecreation> recreations,
            Set<PartitionKey> reread) {
        return new CommitResult(r.tableVersion(), r.committedAt(), r.rows(), r.bytes(), r.decodeFailures(),
                r.commitNanos(), r.positions(), r.committed(), recreations, Set.copyOf(reread), r.lost());
    }
}
