package io.tributary.server;

import io.tributary.config.MaintenanceConfig;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import io.tributary.config.MaintenanceConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * The all-in-one server's table maintenance: {@link MaintenanceRuns} every {@code tributary.maintenance.interval}, so a
 * stream with a 1 s trigger does not pile up tens of thousands of small files a day. Server-only (the backfill
 * Lambda maintains the tables at each of its ticks), hence in the server's source root.
 */
@ApplicationScoped
public class MaintenanceSchedule {
    private static final Logger LOG = Logger.getLogger(MaintenanceSchedule.class);
    static final String JOB = "tributary-maintenance";

    @Inject
    Scheduler scheduler;
    @Inject
    MaintenanceRuns runs;
    @Inject
    MaintenanceConfig config;

    /** Reading the settings here makes a bad one (e.g. a retention under 1h) fail the start-up, naming the key. */
    void start(@Observes StartupEvent event) {
        if (config.interval().isNegative() || config.interval().isZero()) {
            throw new IllegalArgumentException("tributary.maintenance.interval (TRIBUTARY_MAINTENANCE_INTERVAL) must be"
                    + " positive, not " + config.interval());
        }
        var settings = runs.settings();
        scheduler.newJob(JOB)
                .setInterval(config.interval().toString())
                .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP)
                .setTask(execution -> runs.runAll())
                .schedule();
        LOG.infof("table maintenance every %s (target file size %d bytes, vacuum retention %s)", config.interval(),
                settings.targetFileBytes(), settings.vacuumRetention());
    }
}
