package io.tributary.server;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.PartitionPosition;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.KafkaTopicIds;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.StreamDeletedException;
import io.tributary.ingest.StreamIngester;
import io.tributary.ingest.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
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
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(15);
    private static final long MAX_BACKOFF_MS = 30_000;
    private static final Duration STALL_AFTER = Duration.ofSeconds(30);
    private static final Duration JOIN_GRACE = Duration.ofSeconds(30);

    private final PipelineSpec spec;
    private final PipelineSettings settings;
    private final IngesterFactory ingesters;
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
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile StreamIngester ingester;

    StreamPipeline(PipelineSpec spec, PipelineSettings settings, IngesterFactory ingesters, PipelineStatus status,
            PipelineMetrics metrics) {
        this.spec = spec;
        this.settings = settings;
        this.ingesters = ingesters;
        this.status = status;
        this.metrics = metrics;
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
        DeltaTable table = ingesters.table(spec);
        Map<PartitionKey, PartitionPosition> details = table.positionDetails();
        Map<PartitionKey, Long> positions = new HashMap<>();
        details.forEach((k, v) -> positions.put(k, v.next()));
        status.opened(table.status(), positions);
        status.recreations(IngestionStatus.TopicRecreation.of(details));
        if (idlePositions == null) {
            idlePositions = Map.copyOf(positions);
        }
    }

    /** End offsets an idle stream's partitions have, as {@link IdleWatch} found them: they keep its lag current. */
    void idleEndOffsets(Map<PartitionKey, Long> ends) {
        status.endOffsets(ends);
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
        KafkaConsumer<byte[], byte[]> c = consumer;
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
        return status.snapshot();
    }

    private void run() {
        long backoffMs = 1000;
        try {
            while (!stopping) {
                try {
                    if (runOnce()) {
                        LOG.debugf("stream %s is idle; its consumer is closed until records arrive",
                                spec.streamName());
                        return;
                    }
                    backoffMs = 1000;
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
                    status.failed(why);
                    LOG.warnf("stream %s failed, retrying in %d ms: %s", spec.streamName(), backoffMs, why);
                    sleep(backoffMs);
                    backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
                }
            }
        } finally {
            active = false;
        }
    }

    /** One consumer's life; true when it ended because the stream went idle. */
    private boolean runOnce() throws Exception {
        IngesterFactory.Opened opened = ingesters.open(spec);
        ingester = opened.ingester();
        if (stopping) {
            ingester.cancel();
            return false;
        }
        status.opened(opened.table().status(), ingester.positions());
        status.recreations(IngestionStatus.TopicRecreation.of(opened.table().positionDetails()));
        ingester.positions().keySet().forEach(metrics::lagGauge);
        try (KafkaConsumer<byte[], byte[]> c = KafkaConsumers.create(spec, settings);
                KafkaTopicIds topicIds = new KafkaTopicIds(spec.kafkaProperties())) {
            consumer = c;
            // Each batch is checked against the topics' current ids: a topic deleted and created again is reset.
            ingester.topicIds(topicIds);
            if (stopping) {
                return false;
            }
            return new Session(c, opened.table(), ingester).run();
        } catch (WakeupException e) {
            if (!stopping) {
                throw e;
            }
            return false;
        } finally {
            consumer = null;
        }
    }

    /** One consumer's life: from subscribing to a failure or the stop. */
    private final class Session implements ConsumerRebalanceListener {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final DeltaTable table;
        private final StreamIngester ingester;
        private final MicroBatch.Builder batch = MicroBatch.builder();
        private long batchOpenedNanos;
        private Future<?> inflight;
        private long inflightSinceNanos;
        private boolean reportedStall;
        private MicroBatch waiting;
        /** Set by the writer when its batch reset a recreated topic; read once its future is done. */
        private volatile boolean reread;
        private long nextProbeNanos;
        private long nextRefreshNanos;
        private long lastRecordNanos = System.nanoTime();

        Session(KafkaConsumer<byte[], byte[]> consumer, DeltaTable table, StreamIngester ingester) {
            this.consumer = consumer;
            this.table = table;
            this.ingester = ingester;
        }

        /** @return true when the stream went idle, false when it was stopped */
        boolean run() throws Exception {
            try {
                // Fails fast (and names the cause) when Kafka is unreachable or refuses the credentials.
                consumer.listTopics(PROBE_TIMEOUT);
                status.running();
                subscribe();
                while (!stopping) {
                    rethrowWriteFailure();
                    if (waiting != null && !writerBusy()) {
                        MicroBatch next = waiting;
                        waiting = null;
                        consumer.resume(consumer.paused());
                        submit(next);
                    }
                    long now = System.nanoTime();
                    Duration timeout = waiting != null ? Duration.ofMillis(20)
                            : settings.pollTimeout(batch.size(), batchOpenedNanos, now);
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
                    add(records);
                    now = System.nanoTime();
                    if (waiting == null && settings.closes(batch.size(), batch.byteSize(), batchOpenedNanos, now)) {
                        MicroBatch closed = batch.build();
                        if (writerBusy()) {
                            // Back-pressure: hold this batch, stop fetching until the writer takes it.
                            waiting = closed;
                            consumer.pause(consumer.assignment());
                        } else {
                            submit(closed);
                        }
                    }
                    maintain(now);
                    if (inflight == null && waiting == null && batch.isEmpty() && idleSince(now)) {
                        idlePositions = readPositions();
                        return true;
                    }
                }
                return false;
            } finally {
                awaitWriter();
            }
        }

        /**
         * Whether nothing was read for the idle timeout. Without partitions the session may still be joining its
         * group (which can outlast a short idle timeout), so it waits longer before it gives up.
         */
        private boolean idleSince(long now) {
            long quiet = now - lastRecordNanos;
            long idle = settings.idleTimeout().toNanos();
            return quiet >= idle && (quiet >= idle + JOIN_GRACE.toNanos() || !consumer.assignment().isEmpty());
        }

        /**
         * The table's positions, moved past what the consumer skipped without a row (transaction markers, compacted
         * offsets), so such offsets do not look like waiting records to {@link IdleWatch}.
         */
        private Map<PartitionKey, Long> readPositions() {
            Map<PartitionKey, Long> at = new HashMap<>(ingester.positions());
            for (TopicPartition tp : consumer.assignment()) {
                try {
                    at.merge(new PartitionKey(tp.topic(), tp.partition()), consumer.position(tp, PROBE_TIMEOUT),
                            Math::max);
                } catch (RuntimeException e) {
                    // The table's position stands; at worst the watch wakes the stream once for nothing.
                }
            }
            // A fresh instance each time: IdleWatch tells a new idle period from the last one by identity.
            return java.util.Collections.unmodifiableMap(at);
        }

        private void add(ConsumerRecords<byte[], byte[]> records) {
            if (records.isEmpty()) {
                return;
            }
            lastRecordNanos = System.nanoTime();
            if (batch.isEmpty()) {
                batchOpenedNanos = lastRecordNanos;
            }
            for (ConsumerRecord<byte[], byte[]> r : records) {
                batch.add(new SourceRecord(r.topic(), r.partition(), r.offset(), r.timestamp(), r.key(), r.value()));
            }
        }

        private boolean writerBusy() {
            return inflight != null && !inflight.isDone();
        }

        private void submit(MicroBatch closed) throws Exception {
            if (rethrowWriteFailure()) {
                // The batch was collected from positions the writer has just reset.
                return;
            }
            inflightSinceNanos = System.nanoTime();
            reportedStall = false;
            inflight = writer.submit(() -> {
                ingester.ingest(closed).ifPresent(result -> {
                    status.committed(result);
                    metrics.committed(result);
                    if (!result.reread().isEmpty()) {
                        reread = true;
                    }
                });
                return null;
            });
        }

        /**
         * Rethrows the finished write's failure. When the write reset a recreated topic's positions, every record
         * collected meanwhile (from the old topic, or from the new one past its beginning) is dropped and each
         * partition reads again from the table's position.
         *
         * @return whether the partitions were sent back to the table's positions
         */
        private boolean rethrowWriteFailure() throws Exception {
            if (inflight != null && inflight.isDone()) {
                Future<?> done = inflight;
                inflight = null;
                try {
                    done.get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception ex ? ex : e;
                }
                if (reread) {
                    reread = false;
                    batch.build();
                    if (waiting != null) {
                        waiting = null;
                        consumer.resume(consumer.paused());
                    }
                    seekToTable(consumer.assignment());
                    return true;
                }
            }
            return false;
        }

        private void awaitWriter() {
            Future<?> f = inflight;
            if (f == null) {
                return;
            }
            try {
                f.get();
            } catch (ExecutionException | CancellationException e) {
                // Reported by the caller's own failure, or irrelevant once stopping.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void subscribe() {
            Subscription subscription = spec.subscription();
            if (subscription instanceof Subscription.Topics topics) {
                consumer.subscribe(topics.topics(), this);
            } else if (subscription instanceof Subscription.Pattern pattern) {
                consumer.subscribe(Pattern.compile(pattern.regex()), this);
            } else {
                refreshAssignment();
            }
        }

        /**
         * Probes Kafka (end offsets, which also give the lag), discovers assigned partitions added later, and reports a
         * write that storage keeps retrying: the table's own retries can outlast a short outage, but the stream's state
         * should say so meanwhile. The next commit sets it RUNNING again.
         */
        private void maintain(long now) {
            if (!reportedStall && writerBusy() && now - inflightSinceNanos > stallNanos()) {
                reportedStall = true;
                status.failed("writing the ingestion table has not completed for "
                        + (now - inflightSinceNanos) / 1_000_000_000L + " s (storage unreachable or very slow); "
                        + "still retrying");
            }
            if (now >= nextProbeNanos) {
                nextProbeNanos = now + Math.max(settings.triggerInterval().toNanos(), 1_000_000_000L);
                Set<TopicPartition> assigned = consumer.assignment();
                if (assigned.isEmpty()) {
                    consumer.listTopics(PROBE_TIMEOUT);
                } else {
                    Map<PartitionKey, Long> ends = new HashMap<>();
                    consumer.endOffsets(assigned, PROBE_TIMEOUT)
                            .forEach((tp, end) -> ends.put(new PartitionKey(tp.topic(), tp.partition()), end));
                    status.endOffsets(ends);
                    ends.keySet().forEach(metrics::lagGauge);
                }
            }
            if (spec.subscription() instanceof Subscription.Assign && now >= nextRefreshNanos) {
                refreshAssignment();
            }
        }

        private long stallNanos() {
            return Math.max(STALL_AFTER.toNanos(), 10 * settings.triggerInterval().toNanos());
        }

        private void refreshAssignment() {
            nextRefreshNanos = System.nanoTime() + settings.topicRefresh().toNanos();
            Map<String, List<Integer>> wanted = ((Subscription.Assign) spec.subscription()).partitions();
            Set<TopicPartition> existing = new HashSet<>();
            for (Map.Entry<String, List<Integer>> e : wanted.entrySet()) {
                List<PartitionInfo> infos = consumer.partitionsFor(e.getKey(), PROBE_TIMEOUT);
                Set<Integer> present = new HashSet<>();
                for (PartitionInfo info : infos == null ? List.<PartitionInfo>of() : infos) {
                    present.add(info.partition());
                }
                for (Integer p : e.getValue()) {
                    if (present.contains(p)) {
                        existing.add(new TopicPartition(e.getKey(), p));
                    }
                }
            }
            Set<TopicPartition> current = consumer.assignment();
            if (existing.equals(current)) {
                return;
            }
            List<TopicPartition> added = new ArrayList<>(existing);
            added.removeAll(current);
            consumer.assign(existing);
            lastRecordNanos = System.nanoTime();
            if (waiting != null) {
                consumer.pause(consumer.assignment());
            }
            seekToTable(added);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            drop(partitions);
            // The next owner seeks to the table's position: let the running commit land first so it finds it.
            awaitWriter();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            drop(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            // Joining the group can take longer than the idle timeout; idleness counts from having partitions.
            lastRecordNanos = System.nanoTime();
            seekToTable(partitions);
            if (waiting != null) {
                consumer.pause(partitions);
            }
        }

        private void drop(Collection<TopicPartition> partitions) {
            List<PartitionKey> keys = partitions.stream().map(tp -> new PartitionKey(tp.topic(), tp.partition()))
                    .toList();
            batch.removePartitions(keys);
        }

        /** Every partition starts at the table's position, or at its beginning when the table has none for it. */
        private void seekToTable(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            Map<PartitionKey, Long> positions = table.positions();
            status.positions(positions);
            List<TopicPartition> fromBeginning = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                Long position = positions.get(new PartitionKey(tp.topic(), tp.partition()));
                if (position == null) {
                    fromBeginning.add(tp);
                } else {
                    consumer.seek(tp, position);
                }
            }
            if (!fromBeginning.isEmpty()) {
                consumer.seekToBeginning(fromBeginning);
            }
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
