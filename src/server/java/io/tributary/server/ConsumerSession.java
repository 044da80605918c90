package io.tributary.server;

import io.tributary.delta.TableSnapshot;
import io.tributary.delta.PartitionKey;
import io.tributary.ingest.BatchMemory;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.StreamIngester;
import io.tributary.ingest.Subscription;
import io.tributary.ingest.SubscriptionTopics;
import io.tributary.logs.LogContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * One consumer's life in a {@link StreamPipeline}, from subscribing to a failure, the stop or going idle: polls,
 * closes micro-batches and hands them to the writer thread, holds back (pauses) while the writer is busy with a
 * batch waiting, follows the group's rebalances and seeks every partition it gets to the table's position.
 */
final class ConsumerSession implements ConsumerRebalanceListener {
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration STALL_AFTER = Duration.ofSeconds(30);
    /** Joining the group can outlast a short idle timeout: a session without partitions waits this much longer. */
    private static final Duration JOIN_GRACE = Duration.ofSeconds(30);
    /** How long the consumer waits on a busy writer before it polls again (heartbeats and rebalances go on). */
    private static final Duration WRITER_WAIT = Duration.ofMillis(20);

    private final PipelineSpec spec;
    private final PipelineSettings settings;
    private final PipelineStatus status;
    private final PipelineMetrics metrics;
    private final ExecutorService writer;
    private final BooleanSupplier stopping;
    private final Consumer<byte[], byte[]> consumer;
    private final TableSnapshot table;
    private final StreamIngester ingester;
    private final MicroBatch.Builder batch = MicroBatch.builder();
    /**
     * The process's pipelines' records ({@link BatchMemory}) and this session's part of them, changed under
     * {@code this}' lock by the consumer's thread and the writer's; once the session has ended ({@code ended}) a write
     * still running (the session's thread interrupted) gives back nothing more.
     */
    private final BatchMemory memory;
    private long held;
    private boolean ended;
    private long batchOpenedNanos;
    /** When the previous batch closed; at first a whole interval ago, so the first records need not wait one out. */
    private long lastClosedNanos;
    private Future<?> inflight;
    private long inflightSinceNanos;
    private boolean reportedStall;
    private final MissingTopics missingTopics;
    private MicroBatch waiting;
    /** Set by the writer when its batch reset a recreated topic; read once its future is done. */
    private volatile boolean reread;
    private long nextProbeNanos;
    private long nextRefreshNanos;
    private long lastRecordNanos = System.nanoTime();
    /** Where the stream stood when the session went idle; null while it runs or when it was stopped. */
    private Map<PartitionKey, Long> idlePositions;

    ConsumerSession(PipelineSpec spec, PipelineSettings settings, PipelineStatus status, PipelineMetrics metrics,
            ExecutorService writer, BooleanSupplier stopping, Consumer<byte[], byte[]> consumer, TableSnapshot table,
            StreamIngester ingester) {
        this.spec = spec;
        this.settings = settings;
        this.status = status;
        this.metrics = metrics;
        this.writer = writer;
        this.stopping = stopping;
        this.consumer = consumer;
        this.table = table;
        this.ingester = ingester;
        this.missingTopics = new MissingTopics(spec.subscription(), status);
        this.lastClosedNanos = System.nanoTime() - settings.triggerInterval().toNanos();
        this.memory = settings.memory();
    }

    /** Where the stream stood when {@link #run()} returned true. */
    Map<PartitionKey, Long> idlePositions() {
        return idlePositions;
    }

    /** @return true when the stream went idle, false when it was stopped */
    boolean run() throws Exception {
        try {
            // Fails fast (and names the cause) when Kafka is unreachable or refuses the credentials.
            Set<String> listed = consumer.listTopics(PROBE_TIMEOUT).keySet();
            status.running();
            status.kafkaAnswered();
            missingTopics.listed(listed, Set.of());
            subscribe();
            while (!stopping.getAsBoolean()) {
                rethrowWriteFailure();
                if (waiting != null && !writerBusy()) {
                    MicroBatch next = waiting;
                    waiting = null;
                    consumer.resume(consumer.paused());
                    submit(next);
                }
                ConsumerRecords<byte[], byte[]> records;
                if (waiting != null) {
                    // Fetching is paused until the writer takes the waiting batch: wait on the writer itself, so the
                    // batch goes the moment it is free. A poll of paused partitions only returned after its whole
                    // timeout (20 ms), on average 10 ms of two idle cores per batch of a catch-up.
                    awaitWriter(WRITER_WAIT);
                    records = consumer.poll(Duration.ZERO);
                } else {
                    records = consumer.poll(settings.pollTimeout(batch.size(), batchOpenedNanos, lastClosedNanos,
                            System.nanoTime()));
                }
                add(records);
                long now = System.nanoTime();
                if (waiting == null && closes(now)) {
                    MicroBatch closed = batch.build();
                    lastClosedNanos = now;
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
                    idlePositions = ConsumerPositions.idle(consumer, ingester.positions());
                    return true;
                }
            }
            return false;
        } finally {
            awaitWriter();
            // The batch being collected and one waiting for the writer are dropped with the session.
            synchronized (this) {
                ended = true;
                memory.release(held);
                held = 0;
            }
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


    private boolean closes(long now) {
        int size = batch.size();
        long bytes = batch.byteSize();
        return size > 0 && memory.full()
                || settings.closes(size, bytes, batchOpenedNanos, lastClosedNanos, false, now)
                || settings.closes(size, bytes, batchOpenedNanos, lastClosedNanos, true, now) && atLogEnd();
    }

    /**
     * Whether the last fetches reached the end of every partition held, from the high watermarks (last stable
     * offsets under read_committed) they brought back: nothing waits on the broker (for a partition whose end is not
     * known yet the consumer asks for it in the background). A partition not fetched yet, or whose topic is gone, is
     * not at its end, so such a batch closes on the timer.
     */
    private boolean atLogEnd() {
        Set<TopicPartition> assigned = consumer.assignment();
        if (assigned.isEmpty()) {
            return false;
        }
        for (TopicPartition tp : assigned) {
            OptionalLong lag = consumer.currentLag(tp);
            if (lag.isEmpty() || lag.getAsLong() > 0) {
                return false;
            }
        }
        return true;
    }

    private void add(ConsumerRecords<byte[], byte[]> records) {
        if (records.isEmpty()) {
            return;
        }
        lastRecordNanos = System.nanoTime();
        if (batch.isEmpty()) {
            batchOpenedNanos = lastRecordNanos;
        }
        long before = batch.byteSize();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            batch.add(new SourceRecord(r.topic(), r.partition(), r.offset(), r.timestamp(), r.key(), r.value()));
        }
        long added = batch.byteSize() - before;
        synchronized (this) {
            held += added;
            memory.take(added);
        }
    }

    /** The records of a batch written or dropped are no longer held. */
    private synchronized void free(long bytes) {
        if (!ended) {
            held -= bytes;
            memory.release(bytes);
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
        LogContext.batchSize(closed.size());
        inflight = writer.submit(() -> {
            try {
                LogContext.stream(spec.streamName());
                ingester.ingest(closed).ifPresent(result -> {
                    status.committed(result);
                    metrics.committed(result);
                    if (!result.reread().isEmpty()) {
                        reread = true;
                    }
                });
                return null;
            } finally {
                free(closed.byteSize());
            }
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
                free(batch.build().byteSize());
                if (waiting != null) {
                    free(waiting.byteSize());
                    waiting = null;
                    consumer.resume(consumer.paused());
                }
                seekToTable(consumer.assignment());
                return true;
            }
        }
        return false;
    }

    /** Waits up to {@code timeout} for the batch being written; its failure is {@link #rethrowWriteFailure}'s. */
    private void awaitWriter(Duration timeout) {
        Future<?> f = inflight;
        if (f == null) {
            return;
        }
        try {
            f.get(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (ExecutionException | CancellationException | java.util.concurrent.TimeoutException e) {
            // Still writing, or failed: the loop's next round reports a failure.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
            Set<TopicPartition> assigned = missingTopics.present(consumer.assignment());
            if (assigned.isEmpty() || missingTopics.any()) {
                missingTopics.listed(consumer.listTopics(PROBE_TIMEOUT).keySet(), consumer.assignment());
                assigned = missingTopics.present(consumer.assignment());
                if (assigned.isEmpty()) {
                    status.kafkaAnswered();
                }
            }
            if (!assigned.isEmpty()) {
                Map<PartitionKey, Long> ends = new HashMap<>();
                try {
                    consumer.endOffsets(assigned, PROBE_TIMEOUT)
                            .forEach((tp, end) -> ends.put(new PartitionKey(tp.topic(), tp.partition()), end));
                } catch (org.apache.kafka.common.errors.TimeoutException e) {
                    // A topic deleted under the session times the probe out; any other cause is a failure.
                    missingTopics.listed(consumer.listTopics(PROBE_TIMEOUT).keySet(), assigned);
                    if (!missingTopics.any()) {
                        throw e;
                    }
                }
                status.endOffsets(ends);
                truncatedLogs(spec, status, ingester, ends);
                if (!ends.isEmpty() && drained(ends)) {
                    status.caughtUp();
                }
                ends.keySet().forEach(metrics::lagGauge);
            }
        }
        if (spec.subscription() instanceof Subscription.Assign && now >= nextRefreshNanos) {
            refreshAssignment();
        }
    }

    /**
     * Whether the consumer has read up to every end offset and nothing is pending: collected, waiting or being
     * written. The consumer's own position rather than the table's, since it steps over transaction markers the
     * table's positions stop before.
     */
    private boolean drained(Map<PartitionKey, Long> ends) {
        if (writerBusy() || waiting != null || !batch.isEmpty()) {
            return false;
        }
        try {
            for (Map.Entry<PartitionKey, Long> e : ends.entrySet()) {
                TopicPartition tp = new TopicPartition(e.getKey().topic(), e.getKey().partition());
                if (consumer.position(tp, Duration.ZERO) < e.getValue()) {
                    return false;
                }
            }
            return true;
        } catch (RuntimeException e) {
            // No position without asking the broker: not known to be drained.
            return false;
        }
    }

    /** Reports (and logs once) partitions whose log ends before the table's position under the same topic id. */
    static void truncatedLogs(PipelineSpec spec, PipelineStatus status, StreamIngester ingester,
            Map<PartitionKey, Long> ends) {
        if (ingester == null || ends.isEmpty()) {
            return;
        }
        Map<PartitionKey, Long> ahead;
        try {
            ahead = ingester.truncatedLogs(ends);
        } catch (RuntimeException e) {
            // The topics' ids could not be read: the next probe asks again; ingestion does not wait for it.
            return;
        }
        Map<PartitionKey, long[]> added = status.truncatedLogs(ends, ahead);
        if (!added.isEmpty()) {
            org.jboss.logging.Logger.getLogger(ConsumerSession.class).warnf("stream %s: %s", spec.streamName(),
                    PipelineStatus.truncationMessage(added));
        }
    }

    private long stallNanos() {
        return Math.max(STALL_AFTER.toNanos(), 10 * settings.triggerInterval().toNanos());
    }

    private void refreshAssignment() {
        nextRefreshNanos = System.nanoTime() + settings.topicRefresh().toNanos();
        Subscription.Assign assign = (Subscription.Assign) spec.subscription();
        Map<String, Integer> counts = new HashMap<>();
        for (String topic : assign.partitions().keySet()) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, PROBE_TIMEOUT);
            if (infos != null && !infos.isEmpty()) {
                counts.put(topic, infos.size());
            }
        }
        Set<TopicPartition> existing = new HashSet<>(
                SubscriptionTopics.partitions(assign, assign.partitions().keySet(), counts));
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
        long before = batch.byteSize();
        batch.removePartitions(keys);
        free(before - batch.byteSize());
    }

    /** Every partition starts at the table's position, or at its beginning when the table has none for it. */
    private void seekToTable(Collection<TopicPartition> partitions) {
        if (!partitions.isEmpty()) {
            Map<PartitionKey, Long> positions = table.positions();
            status.positions(positions);
            ConsumerPositions.seek(consumer, partitions, positions);
        }
    }
}
