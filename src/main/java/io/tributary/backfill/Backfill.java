package io.tributary.backfill;

import io.tributary.delta.ExclusiveCommits;
import io.tributary.delta.TableSnapshot;
import io.tributary.delta.NoSuchTableException;
import io.tributary.delta.Tables;
import io.tributary.delta.WriteGuard;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import io.tributary.logs.LogContext;
import org.jboss.logging.Logger;

/**
 * SPEC 5: the overlap check and the one-time merge of a backfill source into a stream's ingestion table. Plain Java,
 * stateless between calls: all state lives in the ingestion table's log (the completion marker), so the server's
 * schedule and the backfill Lambda call the same methods and a crash anywhere is repaired by calling again.
 */
public final class Backfill {
    private static final Logger LOG = Logger.getLogger(Backfill.class);
    /** A redo happens only when stream rows raced in with keys the round also wrote; it is rare, so a few suffice. */
    private static final int MAX_ROUNDS = 5;
    static final String STREAM_GONE = "the stream was deleted before the merge committed; nothing was merged";

    private final Tables tables;
    private final BackfillSettings settings;
    private final Clock clock;
    private final MergeHooks hooks;

    public Backfill(Tables tables, BackfillSettings settings, Clock clock) {
        this(tables, settings, clock, MergeHooks.NONE);
    }

    Backfill(Tables tables, BackfillSettings settings, Clock clock, MergeHooks hooks) {
        this.tables = tables;
        this.settings = settings;
        this.clock = clock;
        this.hooks = hooks;
    }

    /**
     * For stream creation: the rule the check applies, so a source that could never merge is refused up front.
     *
     * @return what is wrong with the backfill source and how to fix it, or empty
     */
    public static Optional<String> checkSource(Tables tables, String location) {
        return SourceCheck.problem(tables, location);
    }

    /** The overlap check, then the merge if it is due. */
    public BackfillStatus run(BackfillJob job) {
        BackfillStatus status = check(job);
        return status.state() == BackfillState.MERGING ? merge(job, status) : status;
    }

    /**
     * @return COMPLETED if the marker is in the log, MERGING if the merge is due now (persist it, then call
     *         {@link #merge}), WAITING_FOR_OVERLAP, or FAILED with the reason
     */
    public BackfillStatus check(BackfillJob job) {
        try {
            TableSnapshot ingestion = tables.open(job.ingestionLocation());
            Optional<String> marker = ingestion.domainMetadata(CompletionMarker.DOMAIN);
            if (marker.isPresent()) {
                return CompletionMarker.parse(marker.get()).status();
            }
            Optional<String> problem = SourceCheck.problem(tables, job.sourceLocation());
            if (problem.isPresent()) {
                return BackfillStatus.failed(problem.get());
            }
            return OverlapCheck.decide(TimestampBounds.sourceMax(tables, job.sourceLocation()),
                    TimestampBounds.ingestionMin(tables, job.ingestionLocation()), job.streamCreatedAt(), settings, clock);
        } catch (NoSuchTableException e) {
            return BackfillStatus.failed("the ingestion table " + job.ingestionLocation() + " does not exist");
        } catch (RuntimeException e) {
            LOG.warnf(e, "backfill check of %s failed", job.ingestionLocation());
            return BackfillStatus.failed("the overlap check failed: " + e.getMessage() + "; it is retried at the next check");
        }
    }

    /**
     * Merges the source into the ingestion table in one commit with the completion marker. Idempotent: after the
     * marker is committed it only reports it.
     *
     * @param due the MERGING status {@link #check} returned; its timestamps and {@code forced} go into the marker
     */
    public BackfillStatus merge(BackfillJob job, BackfillStatus due) {
        return merge(job, due, WriteGuard.NONE);
    }

    /**
     * {@link #merge(BackfillJob, BackfillStatus)} with each commit attempt inside {@code guard}, so the stream's
     * delete cannot remove the table under a commit and no commit lands after it. When the guard finds the stream
     * gone, the round's files are removed and the status is FAILED with {@link #STREAM_GONE}.
     */
    public BackfillStatus merge(BackfillJob job, BackfillStatus due, WriteGuard guard) {
        try {
            ExclusiveCommits ingestion = tables.open(job.ingestionLocation());
            Optional<String> existing = ingestion.domainMetadata(CompletionMarker.DOMAIN);
            if (existing.isPresent()) {
                return CompletionMarker.parse(existing.get()).status();
            }
            Optional<String> problem = SourceCheck.problem(tables, job.sourceLocation());
            if (problem.isPresent()) {
                return due.withFailure(problem.get());
            }
            SourceRowMapper mapper = new SourceRowMapper(ingestion.rowSchema(),
                    MergeRound.columnNames(tables, job.sourceLocation()), "backfill");
            DedupKeys keys = new DedupKeys(mapper.rowSchema(), job.deduplicationColumns());
            for (int round = 0; round < MAX_ROUNDS; round++) {
                long started = System.nanoTime();
                try (MergeRound r = MergeRound.run(tables, ingestion, job.sourceLocation(), keys, mapper, settings)) {
                    CompletionMarker marker = new CompletionMarker(UUID.randomUUID().toString(), clock.instant(), r.rows(),
                            due.backfillMaxTimestamp(), due.ingestionMinTimestamp(), due.forced(), job.sourceLocation(),
                            r.sourceVersion());
                    MergeCommit.Result result = MergeCommit.commit(ingestion, r, keys, marker, hooks, guard);
                    if (result == MergeCommit.Result.COMMITTED) {
                        LogContext.batchSize(r.rows());
                        LOG.infof("backfill of %s merged %d rows in %d files (%d pass(es), %d ms)",
                                job.ingestionLocation(), r.rows(), r.files().size(), r.passes(),
                                (System.nanoTime() - started) / 1_000_000);
                        return marker.status();
                    }
                    if (result == MergeCommit.Result.GONE) {
                        // Files written after the delete removed the table would otherwise stay under its location.
                        ingestion.discard(r.files());
                        LOG.infof("backfill of %s: %s", job.ingestionLocation(), STREAM_GONE);
                        return due.withFailure(STREAM_GONE);
                    }
                    if (result == MergeCommit.Result.ALREADY_MERGED) {
                        return CompletionMarker.parse(ingestion.domainMetadata(CompletionMarker.DOMAIN).orElseThrow()).status();
                    }
                    LOG.infof("backfill of %s: stream rows raced in with keys of the merge; redoing it", job.ingestionLocation());
                }
            }
            return due.withFailure("stream rows kept arriving with keys the merge was about to insert (" + MAX_ROUNDS
                    + " rounds); the next check retries");
        } catch (NoSuchTableException e) {
            return due.withFailure(e.getMessage());
        } catch (IllegalArgumentException e) {
            return due.withFailure(e.getMessage());
        } catch (RuntimeException e) {
            LOG.warnf(e, "backfill merge into %s failed", job.ingestionLocation());
            return due.withFailure("the merge failed: " + e.getMessage() + "; it is retried at the next check");
        }
    }
}
