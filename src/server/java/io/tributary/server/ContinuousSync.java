package io.tributary.server;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tributary.config.OnlineConfig;
import io.tributary.delta.WriteGuard;
import io.tributary.registry.online.SyncRunner;
import io.tributary.registry.online.SyncedTableStore;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * The server's CONTINUOUS synced tables: right after each commit of a source table that has one, its synced tables
 * are brought up to date on a thread of their own, coalesced, so the pipeline's writer never waits for PostgreSQL; every
 * {@code tributary.online.catch-up-interval} every CONTINUOUS table is synced anyway ({@link AfterCommitRunner}).
 */
@ApplicationScoped
public class ContinuousSync {
    @Inject
    SyncRunner syncs;
    @Inject
    SyncedTableStore registry;
    @Inject
    OnlineConfig config;

    private AfterCommitRunner runner;

    @PostConstruct
    void init() {
        runner = new AfterCommitRunner("continuous sync", () -> registry.continuousLocations(),
                location -> syncs.runContinuousOf(location), () -> syncs.catchUp());
    }

    void start(@Observes StartupEvent event) {
        if (config.catchUpInterval().toMillis() <= 0) {
            throw new IllegalArgumentException("tributary.online.catch-up-interval (TRIBUTARY_ONLINE_CATCH_UP_INTERVAL)"
                    + " must be positive, not " + config.catchUpInterval());
        }
        runner.start(config.catchUpInterval());
    }

    /** The stream's write guard, which also asks for a sync of the table's synced tables after each commit. */
    WriteGuard afterCommits(WriteGuard guard, String location) {
        return runner.afterCommits(guard, location);
    }

    /** A synced table or view created here: its table's next commit must not wait for the next read of the set. */
    void created(@Observes io.tributary.registry.service.AfterCommitWorkChanged changed) {
        runner.refreshSourcesNow();
    }

    void onShutdown(@Observes ShutdownEvent event) {
        runner.stop();
    }
}
