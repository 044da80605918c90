package io.tributary.server;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.IngestionStatusSource;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Registered streams this server could not start because their spec could not be built when it read them (a secret
 * the stream reads was deleted and is to be put again, the registry failed half-way): at start-up, at a catch-up after
 * its notification session was lost, or for another server's start. The start-up scan leaves such a stream out rather
 * than hold up the others; this tries it again every {@link #RETRY} until it starts here or is deleted, and meanwhile
 * its status on this server is {@code FAILED} saying why (the table's log alone would read {@code RUNNING}). Before,
 * it stayed out until the server restarted, though other servers (and the registry) had it.
 */
@ApplicationScoped
class UnresolvedStreams implements IngestionStatusSource {
    private static final Logger LOG = Logger.getLogger(UnresolvedStreams.class);
    static final Duration RETRY = Duration.ofSeconds(10);

    /** {@code asOfMs}: when the registry was read; a stop here after it (a delete) keeps the stream stopped. */
    private record Entry(String name, String reason, long asOfMs) {}

    private final Map<String, Entry> streams = new ConcurrentHashMap<>();
    private final ServerPipelines pipelines;
    private final StreamDirectory directory;
    private volatile ScheduledExecutorService executor;

    @Inject
    UnresolvedStreams(ServerPipelines pipelines, StreamDirectory directory) {
        this.pipelines = pipelines;
        this.directory = directory;
    }

    void onStart(@Observes StartupEvent event) {
        ScheduledExecutorService e = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tributary-unresolved-streams");
            t.setDaemon(true);
            return t;
        });
        e.scheduleWithFixedDelay(this::retryAll, RETRY.toMillis(), RETRY.toMillis(), TimeUnit.MILLISECONDS);
        executor = e;
    }

    void onStop(@Observes ShutdownEvent event) {
        ScheduledExecutorService e = executor;
        if (e != null) {
            e.shutdownNow();
        }
    }

    /** Remembers a stream that could not be started here; {@code asOfMs} is when the registry was read. */
    void leftOut(String streamId, String streamName, String reason, long asOfMs) {
        if (!pipelines.runsHere(streamId)) {
            streams.put(streamId, new Entry(streamName, reason, asOfMs));
        }
    }

    /** True while the stream is remembered here as one to try again. */
    boolean remembers(String streamId) {
        return streams.containsKey(streamId);
    }

    /** The stream was started here (or found deleted): nothing to try again. */
    void resolved(String streamId) {
        streams.remove(streamId);
    }

    @Override
    public Optional<IngestionStatus> status(String streamId) {
        Entry e = streams.get(streamId);
        if (e == null || pipelines.runsHere(streamId)) {
            return Optional.empty();
        }
        return Optional.of(new IngestionStatus(IngestionStatus.State.FAILED, "this server cannot start the stream: "
                + e.reason() + " (it tries again every " + RETRY.toSeconds() + " s)", null, -1, 0, 0, List.of()));
    }

    /** Tries every remembered stream again (a test calls it to skip the wait). */
    void retryAll() {
        for (Map.Entry<String, Entry> remembered : Map.copyOf(streams).entrySet()) {
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
            retry(remembered.getKey(), remembered.getValue());
        }
    }

    private void retry(String id, Entry entry) {
        if (pipelines.runsHere(id)) {
            streams.remove(id, entry);
            return;
        }
        Optional<PipelineSpec> spec;
        try {
            spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(id));
        } catch (Throwable e) {
            String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            streams.replace(id, entry, new Entry(entry.name(), reason, entry.asOfMs()));
            LOG.debugf("stream %s still cannot be started here: %s", entry.name(), reason);
            return;
        }
        streams.remove(id, entry);
        if (spec.isPresent()) {
            pipelines.startAnnounced(spec.get(), entry.asOfMs());
            LOG.infof("stream %s can be read from the registry again; started here", entry.name());
        }
    }
}
