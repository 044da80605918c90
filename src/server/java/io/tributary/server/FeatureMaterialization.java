package io.tributary.server;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tributary.config.OnlineConfig;
import io.tributary.delta.WriteGuard;
import io.tributary.registry.features.FeatureViewStore;
import io.tributary.registry.features.FeatureViews;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The server's feature views: right after each commit of a source table that has one, a materialization round of its
 * views runs on a thread of its own (the pipeline's writer never waits for it); commits that land while a round runs
 * are coalesced into one more round. A catch-up every {@code tributary.online.catch-up-interval} runs every view
 * anyway: commits by other servers or the backfill merge, a round that failed, a server restarted.
 */
@ApplicationScoped
public class FeatureMaterialization {
    private static final Logger LOG = Logger.getLogger(FeatureMaterialization.class);
    private static final long SOURCES_REFRESH_MS = 1_000;

    @Inject
    FeatureViews views;
    @Inject
    FeatureViewStore registry;
    @Inject
    OnlineConfig config;

    private final ScheduledExecutorService executor = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "feature-view-materialize");
        t.setDaemon(true);
        return t;
    });
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, Object> running = new ConcurrentHashMap<>();
    private volatile Set<String> sources = Set.of();

    void start(@Observes StartupEvent event) {
        long catchUp = config.catchUpInterval().toMillis();
        executor.scheduleWithFixedDelay(this::refreshSources, 0, SOURCES_REFRESH_MS, TimeUnit.MILLISECONDS);
        executor.scheduleWithFixedDelay(this::catchUp, catchUp, Math.max(1, catchUp), TimeUnit.MILLISECONDS);
    }

    /** The write guard, which also queues a round of the table's feature views after each commit. */
    WriteGuard afterCommits(WriteGuard guard, String location) {
        return new WriteGuard() {
            @Override
            public <T> Optional<T> run(Supplier<T> write) {
                Optional<T> done = guard.run(write);
                if (done.isPresent()) {
                    committed(location);
                }
                return done;
            }
        };
    }

    void committed(String location) {
        if (sources.contains(location) && queued.add(location)) {
            executor.execute(() -> materialize(location));
        }
    }

    private void materialize(String location) {
        Object lock = running.computeIfAbsent(location, l -> new Object());
        synchronized (lock) {
            queued.remove(location);
            try {
                views.runOf(location);
            } catch (RuntimeException e) {
                LOG.warnf("materializing the feature views of %s failed: %s", location, e.getMessage());
            }
        }
    }

    private void refreshSources() {
        try {
            sources = Set.copyOf(registry.sourceLocations());
        } catch (RuntimeException e) {
            LOG.debugf("reading the sources of feature views failed: %s", e.getMessage());
        }
    }

    private void catchUp() {
        try {
            views.catchUp();
        } catch (RuntimeException e) {
            LOG.warnf("the feature views' catch-up failed: %s", e.getMessage());
        }
    }

    void onShutdown(@Observes ShutdownEvent event) {
        executor.shutdownNow();
    }
}
