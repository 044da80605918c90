package io.tributary.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Wakes idle pipelines when records arrive for them. One thread for the whole server: every
 * {@link PipelineSettings#idleCheckInterval()} it asks each Kafka cluster (one admin client per connection, shared by
 * every idle stream on it) for the end offsets of all partitions its idle streams read, in one request, and
 * activates the streams whose partitions hold records past where they stand. The end offsets also keep an idle
 * stream's lag current, and a cluster that cannot be reached marks its idle streams FAILED with the reason.
 */
final class IdleWatch implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(IdleWatch.class);
    /** Reading the tables of streams never run here (after a restart) gets this much of each round. */
    private static final long LOAD_BUDGET_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final PipelineSettings settings;
    private final Set<StreamPipeline> pipelines = ConcurrentHashMap.newKeySet();
    /** Only the watch thread touches these. */
    private final Map<Map<String, String>, IdleCluster> clusters = new HashMap<>();
    /**
     * Each pipeline's cluster, so a round does not hash every stream's connection properties again (with 10k idle
     * streams that alone was a large part of a round).
     */
    private final Map<StreamPipeline, IdleCluster> clusterOf = new IdentityHashMap<>();
    private final Object sleeper = new Object();
    private volatile Thread thread;
    private volatile boolean closed;

    IdleWatch(PipelineSettings settings) {
        this.settings = settings;
    }

    /** Watches the pipeline from now on: it is activated whenever it is idle and records wait for it. */
    void watch(StreamPipeline pipeline) {
        pipelines.add(pipeline);
        startThread();
    }

    void forget(StreamPipeline pipeline) {
        pipelines.remove(pipeline);
    }

    @Override
    public void close() {
        closed = true;
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
        Thread t = thread;
        if (t != null) {
            // A round may be stuck on a broker that is shutting down too; what it still activates after this is
            // stopped by the caller, since activating a stopped pipeline does nothing.
            try {
                t.join(TimeUnit.SECONDS.toMillis(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized void startThread() {
        if (thread == null && !closed) {
            Thread t = new Thread(this::loop, "tributary-idle-watch");
            t.setDaemon(true);
            thread = t;
            t.start();
        }
    }

    private void loop() {
        long interval = settings.idleCheckInterval().toNanos();
        try {
            while (!closed) {
                long started = System.nanoTime();
                try {
                    check();
                } catch (Throwable e) {
                    // This thread is the only way idle streams come back: it must outlive any one bad round.
                    LOG.warnf(e, "checking idle streams failed");
                }
                pause(started + interval);
            }
        } finally {
            clusters.values().forEach(IdleCluster::close);
            clusters.clear();
        }
    }

    private void pause(long untilNanos) {
        synchronized (sleeper) {
            long left;
            while (!closed && (left = untilNanos - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(sleeper, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** One round over every idle pipeline. */
    void check() {
        Map<IdleCluster, List<StreamPipeline>> idleByCluster = new IdentityHashMap<>();
        long loadDeadline = System.nanoTime() + LOAD_BUDGET_NANOS;
        for (StreamPipeline pipeline : pipelines) {
            if (!pipeline.idle()) {
                continue;
            }
            if (pipeline.idlePositions() == null) {
                if (System.nanoTime() > loadDeadline) {
                    continue;
                }
                try {
                    pipeline.loadIdlePositions();
                } catch (RuntimeException e) {
                    // The pipeline itself retries and reports why the table cannot be read.
                    pipeline.activate();
                    continue;
                }
            }
            // A pipeline whose spec was read again (a secret it uses was put anew) moves to the cluster of its new
            // properties; the identity check keeps the round from hashing every stream's properties.
            IdleCluster cluster = clusterOf.get(pipeline);
            Map<String, String> properties = pipeline.spec().kafkaProperties();
            if (cluster == null || cluster.properties() != properties) {
                cluster = clusters.computeIfAbsent(properties, props -> new IdleCluster(settings, props));
                clusterOf.put(pipeline, cluster);
            }
            idleByCluster.computeIfAbsent(cluster, k -> new ArrayList<>()).add(pipeline);
        }
        clusterOf.keySet().retainAll(pipelines);
        clusters.values().removeIf(cluster -> {
            if (idleByCluster.containsKey(cluster)) {
                return false;
            }
            cluster.close();
            clusterOf.values().removeIf(c -> c == cluster);
            return true;
        });
        idleByCluster.forEach(IdleCluster::check);
    }
}
