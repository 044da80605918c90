package io.tributary.runtime;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import io.tributary.backfill.Backfill;
import io.tributary.backfill.BackfillSettings;
import io.tributary.delta.Tables;
import io.tributary.registry.BackfillRound;
import io.tributary.registry.BackfillTargets;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Clock;
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

    private BackfillRound round;

    /**
     * Scheduled programmatically because {@code @Scheduled(every)} does not take SPEC 6's durations such as 500ms;
     * the interval is handed over as ISO-8601, which it does take.
     */
    void start(@Observes StartupEvent event) {
        round = new BackfillRound(targets,
                new Backfill(tables, BackfillSettings.of(config.minOverlap(), config.maxWait()), Clock.systemUTC()));
        scheduler.newJob(JOB)
                .setInterval(config.checkInterval().toString())
                .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP)
                .setTask(execution -> checkAll())
                .schedule();
        LOG.infof("backfill checks every %s (min-overlap %s, max-wait %s)", config.checkInterval(), config.minOverlap(),
                config.maxWait());
    }

    void checkAll() {
        try {
            round.run();
        } catch (Exception e) {
            LOG.warn("cannot list the pending backfills; retrying at the next check", e);
        }
    }
}
