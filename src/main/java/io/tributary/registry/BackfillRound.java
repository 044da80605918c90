package io.tributary.registry;

import io.quarkus.vertx.VertxContextSupport;
import io.tributary.backfill.Backfill;
import io.tributary.backfill.BackfillJob;
import io.tributary.backfill.BackfillState;
import io.tributary.backfill.BackfillStatus;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * One round of backfill checks (SPEC 5), the same for the server's schedule and the backfill function: the overlap
 * check of every stream whose backfill is pending, the merge when it is due, and {@code backfill_status} saved before
 * and after the merge. The merge's own state lives in the ingestion table's log, so a round cut short merges again
 * next time. Runs on a plain (non Vert.x) thread.
 */
public final class BackfillRound {
    private static final Logger LOG = Logger.getLogger(BackfillRound.class);

    private final BackfillTargets targets;
    private final Backfill backfill;

    /** What the round did for one stream; {@code error} when it threw and is left for the next round. */
    public record Result(String streamId, String streamName, BackfillState state, Long rowsMerged, boolean error) {}

    public BackfillRound(BackfillTargets targets, Backfill backfill) {
        this.targets = targets;
        this.backfill = backfill;
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
        for (BackfillTargets.Target target : pending) {
            try {
                BackfillStatus status = check(target);
                results.add(new Result(target.streamId(), target.streamName(), status.state(),
                        status.state() == BackfillState.COMPLETED ? status.rowsMerged() : null, false));
            } catch (Throwable e) {
                LOG.warnf(e, "backfill of stream %s failed; retrying at the next check", target.streamName());
                results.add(new Result(target.streamId(), target.streamName(), null, null, true));
            }
        }
        return results;
    }

    private BackfillStatus check(BackfillTargets.Target target) throws Throwable {
        BackfillJob job = new BackfillJob(target.ingestionLocation(), target.sourceLocation(),
                target.deduplicationColumns(), target.createdAt());
        BackfillStatus status = backfill.check(job);
        if (status.state() == BackfillState.MERGING) {
            if (!save(target, status)) {
                return status;
            }
            status = backfill.merge(job, status);
        }
        if (status.state() == BackfillState.FAILED) {
            LOG.warnf("backfill of stream %s: %s", target.streamName(), status.message());
        } else if (status.state() == BackfillState.COMPLETED) {
            LOG.infof("backfill of stream %s completed: %d rows merged", target.streamName(), status.rowsMerged());
        }
        save(target, status);
        return status;
    }

    private boolean save(BackfillTargets.Target target, BackfillStatus s) throws Throwable {
        BackfillTargets.Status persisted = new BackfillTargets.Status(s.state().name(), s.backfillMaxTimestamp(),
                s.ingestionMinTimestamp(), s.forced(), s.state() == BackfillState.COMPLETED ? s.rowsMerged() : null,
                s.completedAt());
        return VertxContextSupport.subscribeAndAwait(() -> targets.record(target.streamId(), persisted));
    }
}
