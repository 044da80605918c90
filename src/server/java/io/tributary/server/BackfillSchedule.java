package io.tributary.server;

import io.tributary.config.BackfillConfig;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import io.tributary.config.BackfillConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * The all-in-one server's backfill schedule: {@link BackfillChecks} every {@code check-interval}. Server-only (the
 * backfill Lambda is driven by EventBridge instead), hence in the server's source root.
 */
@ApplicationScoped
public class BackfillSchedule {
    private static final Logger LOG = Logger.getLogger(BackfillSchedule.class);
    static final String JOB = "tributary-backfill";

    @Inject
    Scheduler scheduler;
    @Inject
    BackfillChecks checks;
    @Inject
    BackfillConfig config;

    /**
     * Scheduled programmatically because {@code @Scheduled(every)} does not take SPEC 6's durations such as 500ms;
     * the interval is handed over as ISO-8601, which it does take.
     */
    void start(@Observes StartupEvent event) {
        scheduler.newJob(JOB)
                .setInterval(config.checkInterval().toString())
                .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP)
                .setTask(execution -> checks.checkAll())
                .schedule();
        LOG.infof("backfill checks every %s (min-overlap %s, max-wait %s)", config.checkInterval(), config.minOverlap(),
                config.maxWait());
    }
}
