package io.tributary.server;

import io.tributary.delta.WriteGuard;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Work that follows a source table's commits on this server (CONTINUOUS synced tables, feature views): right after
 * each commit of a table that has some, {@code work} runs for it on a thread of its own, so the pipeline's writer never
 * waits for it; commits that land while it runs are coalesced into one more run, and one run per table at a time here
 * (PostgreSQL serialises them across servers anyway). Every {@code catchUp} interval {@code catchUpAll} runs anyway:
 * commits by other servers, by the backfill merge or compaction, a run that failed, a server restarted. The set of
 * tables that have some work is read again every second (one small query), so the writer's check is a set lookup.
 */
final class AfterCommitRunner {
    private static final Logger LOG = Logger.getLogger(AfterCommitRunner.class);
    private static final long SOURCES_REFRESH_MS = 1_000;

    private final String what;
    private final Supplier<Collection<String>> sourceLocations;
    private final Consumer<String> work;
    private final Runnable catchUpAll;
    private final ScheduledExecutorService executor;
    /** Locations with a run queued and not yet started: a commit meanwhile needs no run of its own. */
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, Object> running = new ConcurrentHashMap<>();
    private volatile Set<String> sources = Set.of();

    /** {@code what} names the work in thread names and log lines ("continuous sync", "feature views"). */
    AfterCommitRunner(String what, Supplier<Collection<String>> sourceLocations, Consumer<String> work,
            Runnable catchUpAll) {
        this.what = what;
        this.sourceLocations = sourceLocations;
        this.work = work;
        this.catchUpAll = catchUpAll;
        String thread = what.replace(' ', '-');
        this.executor = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, thread);
            t.setDaemon(true);
            return t;
        });
    }

    void start(Duration catchUp) {
        long ms = catchUp.toMillis();
        executor.scheduleWithFixedDelay(this::refreshSources, 0, SOURCES_REFRESH_MS, TimeUnit.MILLISECONDS);
        executor.scheduleWithFixedDelay(this::catchUp, ms, Math.max(1, ms), TimeUnit.MILLISECONDS);
    }

    /** The write guard, which also queues a run for the table after each of its commits. */
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

    /** Cheap on the writer's thread: a set lookup and, for a table with work, a queued task. */
    void committed(String location) {
        if (sources.contains(location) && queued.add(location)) {
            executor.execute(() -> runFor(location));
        }
    }

    private void runFor(String location) {
        Object lock = running.computeIfAbsent(location, l -> new Object());
        synchronized (lock) {
            queued.remove(location);
            try {
                work.accept(location);
            } catch (RuntimeException e) {
                LOG.warnf("%s of %s failed: %s", what, location, e.getMessage());
            }
        }
    }

    /** Reads the tables with work again now, on the caller's thread (a new synced table or view here). */
    void refreshSourcesNow() {
        refreshSources();
    }

    private void refreshSources() {
        try {
            sources = Set.copyOf(sourceLocations.get());
        } catch (RuntimeException e) {
            LOG.debugf("reading the sources for %s failed: %s", what, e.getMessage());
        }
    }

    private void catchUp() {
        try {
            catchUpAll.run();
        } catch (RuntimeException e) {
            LOG.warnf("the catch-up of %s failed: %s", what, e.getMessage());
        }
    }

    void stop() {
        executor.shutdownNow();
    }
}
