package io.tributary.delta;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Table maintenance: rewriting small files and deleting the ones no reader needs, next to the stream's commits. */
public interface TableUpkeep {

    /** Below this a vacuum could take the file of a commit still in flight. */
    Duration MIN_VACUUM_RETENTION = Duration.ofHours(1);

    /**
     * Rewrites data files smaller than half of {@code targetFileBytes} into files of up to about that size, in one
     * commit that changes no row (concurrent appends are not lost). Files with deletion vectors and partitioned tables
     * are left alone.
     *
     * @return the committed version, or empty when there was nothing to compact or a concurrent compaction won
     */
    Optional<Long> compact(long targetFileBytes);

    /**
     * Deletes data files that no reader can need: not referenced by the latest snapshot, not removed by a commit within
     * {@code retention} (time travel to any version of that period still works), and last modified before
     * {@code retention} (an uncommitted file of a writer in flight stays). Never touches the log.
     *
     * @throws IllegalArgumentException when {@code retention} is below {@link #MIN_VACUUM_RETENTION}
     */
    VacuumResult vacuum(Duration retention);

    record VacuumResult(int filesDeleted, long bytesDeleted) {}

    /**
     * Forgets the direct-ingest producers whose last commit is before {@code cutoff}, in one commit that changes no
     * row; Kafka partitions' positions are never touched. A push of one of them landing meanwhile wins, and nothing is
     * forgotten until the next run.
     *
     * @return the ids of the producers forgotten
     */
    List<String> forgetProducersIdleSince(Instant cutoff);
}
