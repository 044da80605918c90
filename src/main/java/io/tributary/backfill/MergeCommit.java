package io.tributary.backfill;

import io.tributary.delta.ExclusiveCommits;
import io.tributary.delta.TableChangedException;
import io.tributary.delta.TableRows;
import io.tributary.delta.WriteGuard;
import java.util.Map;
import java.util.Optional;

/**
 * Commits a merge round's files and its completion marker as one Delta commit that lands only on the version the
 * round was checked against. When stream commits landed in between, their rows' keys are compared with the round's:
 * no overlap means the files are still right and the commit is retried on the newer version; an overlap means a
 * key the stream delivered first would be inserted again, so the round must be redone.
 *
 * <p>Each attempt runs inside the {@link WriteGuard}: only the commit itself, not the catch-up reads, so a stream
 * delete waits at most for one commit, and an attempt that finds the stream deleted commits nothing.
 */
final class MergeCommit {
    /** Each catch-up reads only what the stream appended meanwhile, so it is short; a live stream still wins races. */
    static final int MAX_ATTEMPTS = 50;

    enum Result { COMMITTED, ALREADY_MERGED, REDO,
        /** The stream was deleted: nothing was committed and nothing must be. */
        GONE }

    private MergeCommit() {}

    static Result commit(ExclusiveCommits ingestion, MergeRound round, DedupKeys keys, CompletionMarker marker, MergeHooks hooks,
            WriteGuard guard) {
        long basedOn = round.basedOn();
        long[] h = new long[2];
        for (int attempt = 0; ; attempt++) {
            hooks.beforeCommit(attempt);
            int thisAttempt = attempt;
            long base = basedOn;
            try {
                Optional<Long> committed = guard.run(() -> {
                    hooks.guarded(thisAttempt);
                    return ingestion.commitExclusive(base, round.files(), Map.of(CompletionMarker.DOMAIN, marker.json()));
                });
                if (committed.isEmpty()) {
                    return Result.GONE;
                }
                // The committed version for the merge's log line, from the commit itself: reading the table after it
                // could find it deleted already (a delete waits only for the commit, then removes the table).
                io.tributary.logs.LogContext.tableVersion(committed.get());
                return Result.COMMITTED;
            } catch (TableChangedException e) {
                // Refused: nothing of this attempt landed. When the round ends here, its files (under the table's
                // location, possibly as large as the source) go now rather than wait out the vacuum retention.
                if (ingestion.domainMetadata(CompletionMarker.DOMAIN).isPresent()) {
                    // Another merge (another server's, the backfill function's) landed first.
                    ingestion.discard(round.files());
                    return Result.ALREADY_MERGED;
                }
                if (attempt + 1 >= MAX_ATTEMPTS) {
                    ingestion.discard(round.files());
                    throw new IllegalStateException("the ingestion table changed before each of " + MAX_ATTEMPTS
                            + " merge commit attempts; the next check retries");
                }
                KeyHashSet arrived = new KeyHashSet(1024);
                try (TableRows added = ingestion.rowsAddedSince(basedOn)) {
                    while (added.hasNext()) {
                        keys.hash(added.next(), h);
                        arrived.add(h[0], h[1]);
                    }
                    basedOn = added.version();
                }
                if (round.wroteAnyOf(arrived)) {
                    ingestion.discard(round.files());
                    return Result.REDO;
                }
            } catch (RuntimeException e) {
                // The outcome of a commit that failed in storage is unknown: the marker in the log tells.
                Optional<String> landed = ingestion.domainMetadata(CompletionMarker.DOMAIN);
                if (landed.isPresent()) {
                    return CompletionMarker.parse(landed.get()).mergeId().equals(marker.mergeId())
                            ? Result.COMMITTED : Result.ALREADY_MERGED;
                }
                throw e;
            }
        }
    }
}
