package io.tributary.server;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tributary.config.OnlineConfig;
import io.tributary.delta.WriteGuard;
import io.tributary.registry.online.SyncRunner;
import io.tributary.registry.online.SyncedTableStore;
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
 * The server's CONTINUOUS synced tables: right after each commit of a source table that has one, its synced tables
 * are brought up to date on a thread of their own, so the pipeline's writer never waits for PostgreSQL. Commits that
 * land while a sync runs are coalesced into one more sync. A catch-up every {@code tributary.online.catch-up-interval}
 * syncs every CONTINUOUS table anyway: commits by other servers or by the backfill merge and compaction, a sync that
 * failed, a server restarted.
 */
@ApplicationScoped
public class ContinuousSync {
    private static final Logger LOG = Logger.getLogger(ContinuousSync.class);
    /** How often the set of sources with a CONTINUOUS synced table is read again (one small query). */
    private static final long SOURCES_REFRESH_MS = 1_000;

    @Inject
    SyncRunner runner;
    @Inject
    SyncedTableStore registry;
    @Inject
    OnlineConfig config;

    private final ScheduledExecutorService executor = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "synced-table-sync");
        t.setDaemon(true);
        return t;
    });
    /** Locations with a sync queued and not yet started: a commit meanwhile needs no sync of its own. */
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    /** One sync per location at a time here (PostgreSQL serialises them across servers anyway). */
    private final ConcurrentHashMap<String, Object> running = new ConcurrentHashMap<>();
    private volatile Set<String> sources = Set.of();

    void start(@Observes StartupEvent event) {
        long catchUp = config.catchUpInterval().toMillis();
        if (catchUp <= 0) {
            throw new IllegalArgumentException("tributary.online.catch-up-interval (TRIBUTARY_ONLINE_CATCH_UP_INTERVAL)"
                    + " must be positive, not " + config.catchUpInterval());
        }
        executor.scheduleWithFixedDelay(this::refreshSources, 0, SOURCES_REFRESH_MS, TimeUnit.MILLISECONDS);
        executor.scheduleWithFixedDelay(this::catchUp, catchUp, catchUp, TimeUnit.MILLISECONDS);
    }

    /** The stream's write guard, which also asks for a sync of the table's synced tables after each commit. */
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

    /** Cheap on the writer's thread: a set lookup and, for a source with a CONTINUOUS synced table, a queued task. */
    void committed(String location) {
        if (sources.contains(location) && queued.add(location)) {
            executor.execute(() -> sync(location));
        }
    }

    private void sync(String location) {
        Object lock = running.computeIfAbsent(location, l -> new Object());
        synchronized (lock) {
            queued.remove(location);
            try {
                runner.runContinuousOf(location);
            } catch (RuntimeException e) {
                LOG.warnf("continuous sync of the synced tables of %s failed: %s", location, e.getMessage());
            }
        }
    }

    private void refreshSources() {
        try {
            sources = Set.copyOf(registry.continuousLocations());
        } catch (RuntimeException e) {
            LOG.debugf("reading the sources of CONTINUOUS synced tables failed: %s", e.getMessage());
        }
    }

    private void catchUp() {
        try {
            runner.catchUp();
        } catch (RuntimeException e) {
            LOG.warnf("the synced tables' catch-up failed: %s", e.getMessage());
        }
    }

    void onShutdown(@Observes ShutdownEvent event) {
        executor.shutdownNow();
    }
}
