package io.tributary.runtime;

import io.quarkus.vertx.VertxContextSupport;
import io.tributary.backfill.Backfill;
import io.tributary.backfill.BackfillJob;
import io.tributary.backfill.BackfillSettings;
import io.tributary.backfill.BackfillState;
import io.tributary.backfill.BackfillStatus;
import io.tributary.delta.Tables;
import io.tributary.registry.BackfillTargets;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * One round of backfill checks (SPEC 5): the overlap check for each stream whose backfill is not COMPLETED, the
 * merge when it is due, the status kept in the registry. The server's schedule and the backfill Lambda both run it;
 * the merge's state lives in the ingestion table's log, so a round cut short simply merges again next time. Call
 * from a worker thread, never from an event loop.
 */
@ApplicationScoped
public class BackfillChecks {
    private static final Logger LOG = Logger.getLogger(BackfillChecks.class);

    @Inject
    BackfillTargets targets;
    @Inject
    Tables tables;
    @Inject
    BackfillConfig config;

    private Backfill backfill;

    @PostConstruct
    void init() {
        backfill = new Backfill(tables, BackfillSettings.of(config.minOverlap(), config.maxWait()), Clock.systemUTC());
    }

    /** @return how many streams ended the round in each state; a stream whose check threw counts as FAILED */
    public Map<BackfillState, Integer> checkAll() {
        Map<BackfillState, Integer> outcome = new EnumMap<>(BackfillState.class);
        List<BackfillTargets.Target> pending;
        try {
            pending = VertxContextSupport.subscribeAndAwait(() -> targets.pending());
        } catch (Throwable e) {
            LOG.warn("cannot list the pending backfills; retrying at the next check", e);
            outcome.merge(BackfillState.FAILED, 1, Integer::sum);
            return outcome;
        }
        for (BackfillTargets.Target target : pending) {
            BackfillState state;
            try {
                state = check(target);
            } catch (Throwable e) {
                LOG.warnf(e, "backfill of stream %s failed; retrying at the next check", target.streamName());
                state = BackfillState.FAILED;
            }
            outcome.merge(state, 1, Integer::sum);
        }
        return outcome;
    }

    private BackfillState check(BackfillTargets.Target target) throws Throwable {
        BackfillJob job = new BackfillJob(target.ingestionLocation(), target.sourceLocation(),
                target.deduplicationColumns(), target.createdAt());
        BackfillStatus status = backfill.check(job);
        if (status.state() == BackfillState.MERGING) {
            if (!save(target, status)) {
                return status.state();
            }
            status = backfill.merge(job, status);
        }
        if (status.state() == BackfillState.FAILED) {
            LOG.warnf("backfill of stream %s: %s", target.streamName(), status.message());
        } else if (status.state() == BackfillState.COMPLETED) {
            LOG.infof("backfill of stream %s completed: %d rows merged", target.streamName(), status.rowsMerged());
        }
        save(target, status);
        return status.state();
    }

    private boolean save(BackfillTargets.Target target, BackfillStatus s) throws Throwable {
        BackfillTargets.Status persisted = new BackfillTargets.Status(s.state().name(), s.backfillMaxTimestamp(),
                s.ingestionMinTimestamp(), s.forced(), s.state() == BackfillState.COMPLETED ? s.rowsMerged() : null,
                s.completedAt());
        return VertxContextSupport.subscribeAndAwait(() -> targets.record(target.streamId(), persisted));
    }
}
