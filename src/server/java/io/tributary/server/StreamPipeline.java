package io.tributary.server;

import io.tributary.delta.TableSnapshot;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.PartitionPosition;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.KafkaTopicIds;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.StreamDeletedException;
import io.tributary.ingest.StreamIngester;
import io.tributary.logs.LogContext;
import io.tributary.retry.Backoff;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

/**
 * One stream's ingestion on this server: a consumer thread that polls Kafka and closes micro-batches, and a writer
 * thread that decodes, writes and commits the previous batch meanwhile. At most one batch is being written and one
 * collected; while the writer is busy with a full batch waiting, the consumer pauses its partitions.
 *
 * <p>Any failure (Kafka, storage) closes the consumer, marks the stream FAILED and starts over after a backoff: the
 * table is reopened and every partition seeks to the table's position, so nothing is lost or doubled.
 *
 * <p>A pipeline that has read nothing for {@link PipelineSettings#idleTimeout()} goes idle: it closes its consumer,
 * its threads end, and it remembers where it stands ({@link #idlePositions()}). {@link IdleWatch} compares that with
 * the partitions' end offsets and {@link #activate() activates} it again when records arrive. A server with thousands
 * of quiet streams therefore holds no consumer, connection or thread for them.
 */
final class StreamPipeline {

    private static final Logger LOG = Logger.getLogger(StreamPipeline.class);
    /** A failed stream starts over after this, doubling while it keeps failing. */
    private static final Backoff BACKOFF = Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30));

    /** Read again from the registry after a failure, so a secret put anew reaches a running stream. */
    private volatile PipelineSpec spec;
    private final SpecSource specs;
    private final PipelineSettings settings;
    private final IngesterFactory ingesters;
    private final ConsumerFactory consumers;
    private final PipelineStatus status;
    private final PipelineMetrics metrics;
    private final ThreadPoolExecutor writer;
    private final Object sleeper = new Object();
    private final Object lifecycle = new Object();
    /** The thread of the current activation; guarded by {@link #lifecycle}. */
    private Thread consumerThread;
    private volatile boolean active;
    private volatile int activations;
    private volatile boolean stopping;
    /** Next offset per partition while idle: the table's positions, or further where the consumer skipped markers. */
    private volatile Map<PartitionKey, Long> idlePositions;
    private volatile Consumer<byte[], byte[]> consumer;
    private volatile StreamIngester ingester;

    StreamPipeline(PipelineSpec spec, PipelineSettings settings, IngesterFactory ingesters, PipelineStatus status,
            PipelineMetrics metrics) {
        this(spec, settings, ingesters, KafkaConsumers::create, status, metrics);
    }

    /** @param consumers opens the stream's Kafka consumer for each activation (a seam for tests) */
    StreamPipeline(PipelineSpec spec, PipelineSettings settings, IngesterFactory ingesters, ConsumerFactory consumers,
            PipelineStatus status, PipelineMetrics metrics) {
        this(spec, SpecSource.FIXED, settings, ingesters, consumers, status, metrics);
    }

    /** @param specs reads the stream's spec again after a failure (its secrets may have been put anew) */
    StreamPipeline(PipelineSpec spec, SpecSource specs, PipelineSettings settings, IngesterFactory ingesters,
            ConsumerFactory consumers, PipelineStatus status, PipelineMetrics metrics) {
        this.spec = spec;
        this.specs = specs;
        this.settings = settings;
        this.ingesters = ingesters;
        this.consumers = consumers;
        this.status = status;
        this.metrics = metrics;
        status.settings(settings);
        status.writerStage(() -> {
            StreamIngester current = ingester;
            return current == null ? null : current.stage();
        });
        // The writer thread ends soon after its last batch, so an idle pipeline holds no thread.
        this.writer = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "tributary-write-" + spec.streamId());
            t.setDaemon(true);
            return t;
        });
        this.writer.allowCoreThreadTimeOut(true);
    }

    PipelineSpec spec() {
        return spec;
    }

    /** Starts reading now. */
    void start() {
        activate();
    }

    /**
     * Starts a consumer thread unless one runs or the pipeline has stopped.
     *
     * @return whether a thread was started
     */
    boolean activate() {
        synchronized (lifecycle) {
            if (stopping || active) {
                return false;
            }
            active = true;
            status.active(true);
            activations++;
            Thread t = new Thread(this::run, "tributary-consume-" + spec.streamId());
            t.setDaemon(true);
            consumerThread = t;
            t.start();
            return true;
        }
    }

    /** True while no consumer runs: never started, or gone idle. */
    boolean idle() {
        return !active && !stopping;
    }

    /** How often a consumer was started: once per stretch of records after idling. */
    int activations() {
        return activations;
    }

    /** Where an idle pipeline stands; null until it has read its table (a pipeline started idle). */
    Map<PartitionKey, Long> idlePositions() {
        return idlePositions;
    }

    /**
     * For a pipeline that has not run yet: reads where the table stands (and its status for GET), so
     * {@link IdleWatch} can tell whether records wait without starting a consumer.
     */
    void loadIdlePositions() {
        TableSnapshot.Summary table = ingesters.table(spec).summary();
        Map<PartitionKey, PartitionPosition> details = table.positions();
        Map<PartitionKey, Long> positions = new HashMap<>();
        details.forEach((k, v) -> positions.put(k, v.next()));
        status.opened(table.status(), positions);
        status.freshness(details);
        status.recreations(IngestionStatus.TopicRecreation.of(details));
        status.lost(IngestionStatus.LostOffsets.of(details));
        if (idlePositions == null) {
            idlePositions = Map.copyOf(positions);
        }
    }

    /**
     * End offsets an idle stream's partitions have, as {@link IdleWatch} found them: they keep its lag current.
     * {@code waiting}: records wait past where it stands (it is being activated).
     */
    void idleEndOffsets(Map<PartitionKey, Long> ends, java.util.Collection<String> missingTopics, boolean waiting) {
        // The idle check covers every partition the stream reads now: a deleted topic's leave the lag.
        status.allEndOffsets(ends);
        ConsumerSession.truncatedLogs(spec, status, ingester, ends);
        if (!waiting) {
            status.caughtUp();
        } else {
            // Kafka answered: the watchdog's clock for the consumer about to start runs from here, not from the
            // stream's last progress before it went idle (maybe hours ago).
            status.kafkaAnswered();
        }
        status.missingTopics(missingTopics);
        ends.keySet().forEach(metrics::lagGauge);
        if (idle()) {
            status.running();
        }
    }

    /** Kafka could not be asked whether records wait: the stream is FAILED until it can. */
    void idleCheckFailed(String why) {
        if (idle()) {
            status.failed(why);
        }
    }

    /** Returns once both threads are done: no write of this pipeline can land afterwards. */
    void stop() {
        Thread running;
        synchronized (lifecycle) {
            stopping = true;
            running = consumerThread;
        }
        StreamIngester current = ingester;
        if (current != null) {
            current.cancel();
        }
        Consumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
        if (running != null) {
            joinUninterruptibly(running);
        }
        writer.shutdown();
        boolean interrupted = false;
        while (true) {
            try {
                if (writer.awaitTermination(1, TimeUnit.DAYS)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        metrics.remove();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    IngestionStatus status() {
        status.read(System.nanoTime());
        return status.snapshot();
    }

    /** Whether {@link StatusRefresh} should read the table: the status is being asked for and was not read lately. */
    boolean statusRefreshDue(long now) {
        return status.refreshDue(now);
    }

    /** Reads the table's status when a version this pipeline did not write is in its log (SPEC 2.2: GET). */
    void refreshStatusFromTable() {
        status.refreshing(System.nanoTime());
        TableSnapshot table = ingesters.table(spec);
        if (status.behind(table.version())) {
            TableSnapshot.Summary summary = table.summary();
            status.refreshed(summary.status(), summary.positions());
        }
    }

    private void run() {
        LogContext.stream(spec.streamName());
        Backoff.Retries retries = BACKOFF.retries();
        try {
            while (!stopping) {
                try {
                    if (runOnce()) {
                        LOG.debugf("stream %s is idle; its consumer is closed until records arrive",
                                spec.streamName());
                        return;
                    }
                    retries.reset();
                } catch (StreamDeletedException deleted) {
                    // Deleted through another server (or before this one's stop came): retrying cannot succeed, and
                    // the lifecycle channel's STOPPED removes this pipeline when it arrives.
                    status.failed(deleted.getMessage());
                    LOG.warnf("stream %s stopped: %s", spec.streamName(), deleted.getMessage());
                    synchronized (lifecycle) {
                        stopping = true;
                    }
                    break;
                } catch (Throwable failure) {
                    if (stopping) {
                        break;
                    }
                    String why = FailureMessages.describe(failure, spec.kafkaProperties());
                    if (FailureMessages.unreachable(failure)) {
                        status.unreachable(why);
                    } else {
                        status.failed(why);
                    }
                    long backoffMs = retries.next().toMillis();
                    LOG.warnf("stream %s failed, retrying in %d ms: %s", spec.streamName(), backoffMs, why);
                    sleep(backoffMs);
                    if (!FailureMessages.registryDatabase(failure)) {
                        // The spec comes from the registry database: while it is down, asking it only blocks the
                        // retry for its timeout. Rotated secrets fail in Kafka or the schema registry instead.
                        readSpecAgain();
                    }
                }
            }
        } finally {
            active = false;
            status.active(false);
        }
    }

    /**
     * The spec holds the stream's secrets as they were when it was read. A failure may be a secret that was rotated
     * (a keystore or schema registry password refused), and retrying with the old values would fail until the server
     * restarts; so before each retry the spec is read again. When the registry cannot answer, the old spec stays.
     */
    private void readSpecAgain() {
        try {
            specs.latest(spec).ifPresent(latest -> spec = latest);
        } catch (RuntimeException e) {
            LOG.debugf("reading the spec of stream %s again failed, retrying with the one it has: %s",
                    spec.streamName(), e.toString());
        }
    }

    /** Where a pipeline reads its stream's spec again. */
    @FunctionalInterface
    interface SpecSource {
        /** Keeps the spec a pipeline was started with (tests, processes without a registry). */
        SpecSource FIXED = Optional::of;

        /** The stream's spec as the registry has it now; empty when the stream is gone (its delete stops the pipeline). */
        Optional<PipelineSpec> latest(PipelineSpec current);
    }

    /** Opens the Kafka consumer of one activation of a stream. */
    @FunctionalInterface
    interface ConsumerFactory {
        Consumer<byte[], byte[]> create(PipelineSpec spec, PipelineSettings settings);
    }

    /** One consumer's life; true when it ended because the stream went idle. */
    private boolean runOnce() throws Exception {
        IngesterFactory.Opened opened = ingesters.open(spec);
        ingester = opened.ingester();
        if (stopping) {
            ingester.cancel();
            return false;
        }
        TableSnapshot.Summary summary = opened.table().summary();
        TableSnapshot.Status table = summary.status();
        LogContext.tableVersion(table.version());
        status.opened(table, ingester.positions());
        Map<PartitionKey, PartitionPosition> details = summary.positions();
        status.freshness(details);
        status.recreations(IngestionStatus.TopicRecreation.of(details));
        status.lost(IngestionStatus.LostOffsets.of(details));
        ingester.positions().keySet().forEach(metrics::lagGauge);
        try (Consumer<byte[], byte[]> c = consumers.create(spec, settings);
                KafkaTopicIds topicIds = new KafkaTopicIds(spec.kafkaProperties())) {
            consumer = c;
            // Each batch is checked against the topics' current ids: a topic deleted and created again is reset.
            ingester.topicIds(topicIds);
            if (stopping) {
                return false;
            }
            ConsumerSession session = new ConsumerSession(spec, settings, status, metrics, writer, () -> stopping, c,
                    opened.table(), ingester);
            if (session.run()) {
                idlePositions = session.idlePositions();
                return true;
            }
            return false;
        } catch (WakeupException e) {
            if (!stopping) {
                throw e;
            }
            return false;
        } finally {
            consumer = null;
        }
    }

    private void sleep(long millis) {
        long deadline = System.currentTimeMillis() + millis;
        synchronized (sleeper) {
            long left;
            while (!stopping && (left = deadline - System.currentTimeMillis()) > 0) {
                try {
                    sleeper.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
