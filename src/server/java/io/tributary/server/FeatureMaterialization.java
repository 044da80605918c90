package io.tributary.server;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tributary.config.OnlineConfig;
import io.tributary.delta.WriteGuard;
import io.tributary.registry.features.FeatureViewStore;
import io.tributary.registry.features.FeatureViews;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * The server's feature views: right after each commit of a source table that has one, a materialization round of its
 * views runs on a thread of its own, coalesced, and every {@code tributary.online.catch-up-interval} every view is
 * caught up ({@link AfterCommitRunner}).
 */
@ApplicationScoped
public class FeatureMaterialization {
    @Inject
    FeatureViews views;
    @Inject
    FeatureViewStore registry;
    @Inject
    OnlineConfig config;

    private AfterCommitRunner runner;

    @PostConstruct
    void init() {
        runner = new AfterCommitRunner("feature view materialization", () -> registry.sourceLocations(),
                location -> views.runOf(location), () -> views.catchUp());
    }

    void start(@Observes StartupEvent event) {
        runner.start(config.catchUpInterval());
    }

    /** The write guard, which also queues a round of the table's feature views after each commit. */
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
