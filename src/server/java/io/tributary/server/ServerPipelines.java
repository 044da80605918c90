package io.tributary.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.IngestionStatusSource;
import io.tributary.ingest.PipelineControl;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.lock.StreamWriteLocks;
import io.tributary.registry.service.AfterCommits;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jboss.logging.Logger;

/**
 * The all-in-one server's pipelines: every registered stream has one here, which holds a consumer only while records
 * flow ({@link IdleWatch} wakes idle ones). The server that handles an API call acts here synchronously and tells the
 * other servers through the lifecycle channel.
 */
@ApplicationScoped
public class ServerPipelines implements PipelineControl, IngestionStatusSource {

    private static final Logger LOG = Logger.getLogger(ServerPipelines.class);

    private final ConcurrentMap<String, StreamPipeline> pipelines = new ConcurrentHashMap<>();
    /** When each stream was last stopped here, so a start announced before that cannot bring it back. */
    private final ConcurrentMap<String, Long> stoppedAt = new ConcurrentHashMap<>();
    private final PipelineSettings settings;
    private final IngesterFactory ingesters;
    private final MeterRegistry registry;
    private final LifecycleEmitter lifecycle;
    private final IdleWatch idleWatch;
    private final StatusRefresh statusRefresh = new StatusRefresh(pipelines::values);
    private final StreamPipeline.SpecSource specs;

    @Inject
    ServerPipelines(IngestConfig config, Tables tables, MeterRegistry registry, LifecycleEmitter lifecycle,
            StreamWriteLocks writeLocks, StreamDirectory directory, AfterCommits afterCommits) {
        // Every commit under the stream's write lock: a delete on another server stops this pipeline only through
        // the lifecycle channel, later; the lock makes its next commit find the stream gone instead. After each
        // commit the server's after-commit work (synced tables, feature views) is queued, off the writer's thread.
        this(config, new TableIngesters(tables, spec -> afterCommits.around(
                writeLocks.forStream(spec.streamId(), spec.tableLocation()), spec.tableLocation())),
                registry, lifecycle,
                spec -> {
                    try {
                        return VertxContextSupport.subscribeAndAwait(() -> directory.byId(spec.streamId()));
                    } catch (Throwable e) {
                        throw new IllegalStateException("reading stream " + spec.streamName() + " failed", e);
                    }
                });
    }

    /** For processes without a registry (bench/multi-server's servers): {@code ingesters} brings its own fence. */
    ServerPipelines(IngestConfig config, IngesterFactory ingesters, MeterRegistry registry,
            LifecycleEmitter lifecycle) {
        this(config, ingesters, registry, lifecycle, StreamPipeline.SpecSource.FIXED);
    }

    private ServerPipelines(IngestConfig config, IngesterFactory ingesters, MeterRegistry registry,
            LifecycleEmitter lifecycle, StreamPipeline.SpecSource specs) {
        this.specs = specs;
        this.settings = PipelineSettings.of(config);
        this.ingesters = ingesters;
        this.registry = registry;
        this.lifecycle = lifecycle;
        this.idleWatch = new IdleWatch(settings);
    }

    @Override
    public void start(PipelineSpec spec) {
        startHere(spec);
        LOG.infof("started ingesting %s into %s", spec.streamName(), spec.tableLocation());
        lifecycle.emit(spec.streamId(), LifecycleEvent.Action.STARTED);
    }

    @Override
    public void stop(String streamId) {
        stopHere(streamId);
        lifecycle.emit(streamId, LifecycleEvent.Action.STOPPED);
    }

    @Override
    public Optional<IngestionStatus> status(String streamId) {
        StreamPipeline pipeline = pipelines.get(streamId);
        if (pipeline == null) {
            return Optional.empty();
        }
        IngestionStatus status = pipeline.status();
        if (pipeline.statusRefreshDue(System.nanoTime())) {
            // Answered from what this server knows; others may have committed since, which the next GET shows.
            statusRefresh.wake();
        }
        return Optional.of(status);
    }

    /**
     * Starts the stream's pipeline in this process unless it already runs here. It starts idle: the watch reads where
     * its table stands and opens a consumer as soon as records wait, so starting thousands of streams at once opens
     * no consumer for the quiet ones.
     */
    void startHere(PipelineSpec spec) {
        if (spec.subscription() instanceof io.tributary.ingest.Subscription.Direct) {
            return; // no Kafka to read: its producers push (registry.service.DirectIngest)
        }
        pipelines.computeIfAbsent(spec.streamId(), id -> {
            PipelineStatus status = new PipelineStatus();
            StreamPipeline pipeline = new StreamPipeline(spec, specs, settings, ingesters, KafkaConsumers::create,
                    status, new PipelineMetrics(registry, spec.streamName(), status));
            idleWatch.watch(pipeline);
            LOG.debugf("started ingesting %s into %s", spec.streamName(), spec.tableLocation());
            return pipeline;
        });
    }

    /**
     * Starts a stream another server announced at {@code announcedAtMs}, unless it was stopped here since: a delete
     * stops the pipeline before it removes the table, and a late start must not revive it in between.
     */
    void startAnnounced(PipelineSpec spec, long announcedAtMs) {
        Long stopped = stoppedAt.get(spec.streamId());
        if (stopped != null && announcedAtMs <= stopped) {
            return;
        }
        startHere(spec);
    }

    void stopHere(String streamId) {
        stoppedAt.put(streamId, System.currentTimeMillis());
        StreamPipeline pipeline = pipelines.remove(streamId);
        if (pipeline != null) {
            idleWatch.forget(pipeline);
            pipeline.stop();
            LOG.infof("stopped ingesting %s", pipeline.spec().streamName());
        }
    }

    boolean runsHere(String streamId) {
        return pipelines.containsKey(streamId);
    }

    Set<String> runningIds() {
        return Set.copyOf(pipelines.keySet());
    }

    void onShutdown(@Observes ShutdownEvent event) {
        idleWatch.close();
        statusRefresh.close();
        for (String id : new ArrayList<>(pipelines.keySet())) {
            stopHere(id);
        }
    }
}
