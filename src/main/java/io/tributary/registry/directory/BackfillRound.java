package io.tributary.registry.directory;

import io.quarkus.vertx.VertxContextSupport;
import io.tributary.backfill.Backfill;
import io.tributary.backfill.BackfillJob;
import io.tributary.backfill.BackfillState;
import io.tributary.backfill.BackfillStatus;
import io.tributary.registry.lock.StreamWriteLocks;
import java.util.ArrayList;
import java.util.List;
import io.tributary.logs.LogContext;
import org.jboss.logging.Logger;

/**
 * One round of backfill checks (SPEC 5), the same for the server's schedule and the backfill function: the overlap
 * check of every stream whose backfill is pending, the merge when it is due, and {@code backfill_status} saved before
 * and after the merge. The merge's own state lives in the ingestion table's log, so a round cut short merges again
 * next time. The merge commits under the stream's {@link StreamWriteLocks} guard, so a stream deleted meanwhile gets
 * no commit; the round reports it as gone. Runs on a plain (non Vert.x) thread.
 */
public final class BackfillRound {
    private static final Logger LOG = Logger.getLogger(BackfillRound.class);

    private final BackfillTargets targets;
    private final Backfill backfill;
    private final StreamWriteLocks writeLocks;

    /**
     * What the round did for one stream; {@code error} when it threw and is left for the next round; {@code gone} when
     * the stream was deleted while the round checked or merged it (nothing was merged, nothing is left to do).
     */
    public record Result(String streamId, String streamName, BackfillState state, Long rowsMerged, boolean error,
            boolean gone) {}

    public BackfillRound(BackfillTargets targets, Backfill backfill, StreamWriteLocks writeLocks) {
        this.targets = targets;
        this.backfill = backfill;
        this.writeLocks = writeLocks;
    }

    /** @throws Exception when the pending backfills cannot be listed (nothing was checked) */
    public List<Result> run() throws Exception {
        List<BackfillTargets.Target> pending;
        try {
            pending = VertxContextSupport.subscribeAndAwait(() -> targets.pending());
        } catch (Exception e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot list the pending backfills", e);
        }
        List<Result> results = new ArrayList<>();
        try {
            for (BackfillTargets.Target target : pending) {
                // Every line about this stream's backfill names it (and, once merged, the version and rows).
                LogContext.stream(target.streamName());
                try {
                    results.add(check(target));
                } catch (Throwable e) {
                    LOG.warnf(e, "backfill of stream %s failed; retrying at the next check", target.streamName());
                    results.add(new Result(target.streamId(), target.streamName(), null, null, true, false));
                }
            }
        } finally {
            LogContext.clear();
        }
        return results;
    }

    private Result check(BackfillTargets.Target target) throws Throwable {
        BackfillJob job = new BackfillJob(target.ingestionLocation(), target.sourceLocation(),
                target.deduplicationColumns(), target.createdAt());
        BackfillStatus status = backfill.check(job);
        if (status.state() == BackfillState.MERGING) {
            if (!save(target, status)) {
                return gone(target, status);
            }
            status = backfill.merge(job, status, writeLocks.forStream(target.streamId(), target.ingestionLocation()));
        }
        // A stream deleted meanwhile has no row to save into (the delete removes it before it lets the merge's
        // guard in), and what failed for it (its table is gone) needs no warning.
        if (!save(target, status)) {
            return gone(target, status);
        }
        if (status.state() == BackfillState.FAILED) {
            LOG.warnf("backfill of stream %s: %s", target.streamName(), status.message());
        } else if (status.state() == BackfillState.COMPLETED) {
            LOG.infof("backfill of stream %s completed: %d rows merged", target.streamName(), status.rowsMerged());
        }
        return new Result(target.streamId(), target.streamName(), status.state(),
                status.state() == BackfillState.COMPLETED ? status.rowsMerged() : null, false, false);
    }

    private static Result gone(BackfillTargets.Target target, BackfillStatus status) {
        LOG.infof("stream %s was deleted during its backfill check; no commit lands in its table after the delete", target.streamName());
        return new Result(target.streamId(), target.streamName(), status.state(), null, false, true);
    }

    private boolean save(BackfillTargets.Target target, BackfillStatus s) throws Throwable {
        BackfillTargets.Status persisted = new BackfillTargets.Status(s.state().name(), s.backfillMaxTimestamp(),
                s.ingestionMinTimestamp(), s.forced(), s.state() == BackfillState.COMPLETED ? s.rowsMerged() : null,
                s.completedAt());
        return VertxContextSupport.subscribeAndAwait(() -> targets.record(target.streamId(), persisted));
    }
}
