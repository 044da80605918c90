package io.tributary.runtime;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.backfill.Backfill;
import io.tributary.backfill.BackfillJob;
import io.tributary.backfill.BackfillSettings;
import io.tributary.backfill.BackfillState;
import io.tributary.backfill.BackfillStatus;
import io.tributary.delta.Tables;
import io.tributary.registry.BackfillTargets;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * The all-in-one server's backfill schedule (SPEC 5): every {@code check-interval}, the overlap check for each stream
 * whose backfill is not COMPLETED, and the merge when it is due, with the status kept in the registry. The merge's
 * state lives in the ingestion table's log, so a server stopped mid-merge simply merges again at the next check.
 */
@ApplicationScoped
public class BackfillSchedule {
    private static final Logger LOG = Logger.getLogger(BackfillSchedule.class);
    static final String JOB = "tributary-backfill";

    @Inject
    Scheduler scheduler;
    @Inject
    BackfillTargets targets;
    @Inject
    Tables tables;
    @Inject
    BackfillConfig config;

    private Backfill backfill;

    /**
     * Scheduled programmatically because {@code @Scheduled(every)} does not take SPEC 6's durations such as 500ms;
     * the interval is handed over as ISO-8601, which it does take.
     */
    void start(@Observes StartupEvent event) {
        backfill = new Backfill(tables, BackfillSettings.of(config.minOverlap(), config.maxWait()), Clock.systemUTC());
        scheduler.newJob(JOB)
                .setInterval(config.checkInterval().toString())
                .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP)
                .setTask(execution -> checkAll())
                .schedule();
        LOG.infof("backfill checks every %s (min-overlap %s, max-wait %s)", config.checkInterval(), config.minOverlap(),
                config.maxWait());
    }

    void checkAll() {
        List<BackfillTargets.Target> pending;
        try {
            pending = VertxContextSupport.subscribeAndAwait(() -> targets.pending());
        } catch (Throwable e) {
            LOG.warn("cannot list the pending backfills; retrying at the next check", e);
            return;
        }
        for (BackfillTargets.Target target : pending) {
            try {
                check(target);
            } catch (Throwable e) {
                LOG.warnf(e, "backfill of stream %s failed; retrying at the next check", target.streamName());
            }
        }
    }

    private void check(BackfillTargets.Target target) throws Throwable {
        BackfillJob job = new BackfillJob(target.ingestionLocation(), target.sourceLocation(),
                target.deduplicationColumns(), target.createdAt());
        BackfillStatus status = backfill.check(job);
        if (status.state() == BackfillState.MERGING) {
            if (!save(target, status)) {
                return;
            }
            status = backfill.merge(job, status);
        }
        if (status.state() == BackfillState.FAILED) {
            LOG.warnf("backfill of stream %s: %s", target.streamName(), status.message());
        } else if (status.state() == BackfillState.COMPLETED) {
            LOG.infof("backfill of stream %s completed: %d rows merged", target.streamName(), status.rowsMerged());
        }
        save(target, status);
    }

    private boolean save(BackfillTargets.Target target, BackfillStatus s) throws Throwable {
        BackfillTargets.Status persisted = new BackfillTargets.Status(s.state().name(), s.backfillMaxTimestamp(),
                s.ingestionMinTimestamp(), s.forced(), s.state() == BackfillState.COMPLETED ? s.rowsMerged() : null,
                s.completedAt());
        return VertxContextSupport.subscribeAndAwait(() -> targets.record(target.streamId(), persisted));
    }
}
