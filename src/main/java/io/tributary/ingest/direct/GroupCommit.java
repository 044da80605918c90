package io.tributary.ingest.direct;

import io.tributary.delta.PartitionKey;
import io.tributary.ingest.CommitResult;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.SequenceGapException;
import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.StreamDeletedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Combines the pushes one process receives for one stream into one Delta commit each round (group commit), so many
 * producers do not mean as many commits. One committer thread per stream, started on demand and gone when idle,
 * takes what has queued (waiting at most {@code maxWait} after the first push for more), orders each producer's
 * batches by sequence and hands them to the stream's {@link io.tributary.ingest.StreamIngester} as one
 * {@link MicroBatch}, each producer being a position ({@link PartitionKey#producer}). Exactly once is the ingester's:
 * the producers' next sequences are committed with the rows, so a retry anywhere, on this process or another, adds
 * nothing, and a concurrent commit of the same producer elsewhere makes this one conflict and drop what landed.
 *
 * <p>Sequences: a producer new to the table starts at 0; each batch must carry the next sequence. A batch at or
 * below the table's is acknowledged again without writing ({@link PushOutcome.Committed#duplicate}); one beyond it
 * is refused ({@link PushOutcome.Gap}) once a fresh read of the table confirms the gap.
 */
public final class GroupCommit {
    private static final Logger LOG = Logger.getLogger(GroupCommit.class);

    /** Limits of one round and of what may wait. */
    public record Limits(Duration maxWait, int maxRecords, long maxBytes, long maxQueuedBytes) {}

    /** Pushes are refused while this much is already waiting for this stream here: the producer should back off. */
    public static final class OverloadedException extends RuntimeException {
        OverloadedException(long queued) {
            super(queued + " bytes of pushed records are already waiting to be committed to this stream here");
        }
    }

    private record Waiting(Push push, CompletableFuture<PushOutcome> done, long bytes) {}

    private final Supplier<OpenedIngester> opener;
    private final Limits limits;
    private final String name;
    private final LinkedBlockingQueue<Waiting> queue = new LinkedBlockingQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final Object threadLock = new Object();
    private Thread committer;
    private OpenedIngester opened;
    private long lastVersion = -1;
    private volatile RuntimeException closedBy;
    private volatile long commits;

    /** @param opener opens the stream's table and an ingester over it, fenced by the stream's write guard */
    public GroupCommit(String name, Supplier<OpenedIngester> opener, Limits limits) {
        this.name = name;
        this.opener = opener;
        this.limits = limits;
    }

    /** Queues a push; the future completes once it is committed (or known committed), refused or failed. */
    public CompletableFuture<PushOutcome> submit(Push push) {
        CompletableFuture<PushOutcome> done = new CompletableFuture<>();
        RuntimeException closed = closedBy;
        if (closed != null) {
            done.completeExceptionally(closed);
            return done;
        }
        long bytes = push.byteSize();
        long queued = queuedBytes.addAndGet(bytes);
        if (queued - bytes > 0 && queued > limits.maxQueuedBytes()) {
            queuedBytes.addAndGet(-bytes);
            done.completeExceptionally(new OverloadedException(queued - bytes));
            return done;
        }
        queue.add(new Waiting(push, done, bytes));
        synchronized (threadLock) {
            if (committer == null) {
                committer = new Thread(this::run, "tributary-push-" + name);
                committer.setDaemon(true);
                committer.start();
            }
        }
        return done;
    }

    /** Delta commits made so far (tests and the bench compare it with the pushes). */
    public long commits() {
        return commits;
    }

    /** Refuses further pushes with {@code reason} and fails those waiting (the stream was deleted). */
    public void close(RuntimeException reason) {
        closedBy = reason;
        List<Waiting> left = new ArrayList<>();
        queue.drainTo(left);
        left.forEach(w -> {
            queuedBytes.addAndGet(-w.bytes());
            w.done().completeExceptionally(reason);
        });
    }

    private void run() {
        io.tributary.logs.LogContext.stream(name);
        while (true) {
            Waiting first;
            try {
                first = queue.poll(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                first = null;
            }
            if (first == null) {
                synchronized (threadLock) {
                    // Only now may a submit start another thread: a push queued before this check is still ours.
                    if (queue.isEmpty()) {
                        committer = null;
                        return;
                    }
                }
                continue;
            }
            List<Waiting> round = collect(first);
            try {
                commit(round);
            } catch (RuntimeException | Error e) {
                round.forEach(w -> w.done().completeExceptionally(e));
            } finally {
                round.forEach(w -> queuedBytes.addAndGet(-w.bytes()));
            }
        }
    }

    /** The first push and whatever joins it within {@code maxWait}, up to the round's limits. */
    private List<Waiting> collect(Waiting first) {
        List<Waiting> round = new ArrayList<>();
        round.add(first);
        int records = first.push().records().size();
        long bytes = first.bytes();
        long deadline = System.nanoTime() + limits.maxWait().toNanos();
        while (records < limits.maxRecords() && bytes < limits.maxBytes()) {
            Waiting next = queue.peek() != null ? queue.poll() : null;
            if (next == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    next = queue.poll(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                if (next == null) {
                    break;
                }
            }
            round.add(next);
            records += next.push().records().size();
            bytes += next.bytes();
        }
        return round;
    }

    private void commit(List<Waiting> round) {
        if (closedBy != null) {
            round.forEach(w -> w.done().completeExceptionally(closedBy));
            return;
        }
        if (opened == null) {
            opened = opener.get();
        }
        Map<String, List<Waiting>> byProducer = new TreeMap<>();
        for (Waiting w : round) {
            byProducer.computeIfAbsent(w.push().producerId(), k -> new ArrayList<>()).add(w);
        }
        byProducer.values().forEach(l -> l.sort((a, b) -> Long.compare(a.push().sequence(), b.push().sequence())));
        Map<PartitionKey, Long> known = opened.ingester().positions();
        Plan plan = Plan.of(byProducer, known);
        if (!plan.gapped.isEmpty() || !plan.duplicates.isEmpty()) {
            // Perhaps another process committed the missing batches, or maintenance forgot a producer this process
            // remembers (SPEC 11.3), whose batch from 0 is not a retry: decide on the table as it is now. A retry is
            // rare, so reading the table for it costs little.
            known = opened.ingester().refreshPositions();
            plan = Plan.of(byProducer, known);
        }
        Map<String, List<Waiting>> included = plan.included;
        for (int attempt = 0; ; attempt++) {
            MicroBatch batch = plan.batch(included);
            Optional<CommitResult> result;
            try {
                result = batch.isEmpty() ? Optional.empty() : opened.ingester().ingest(batch);
            } catch (SequenceGapException gap) {
                // Another writer moved these producers between our check and the commit; the rest go on alone.
                Map<String, List<Waiting>> rest = new LinkedHashMap<>(included);
                gap.expected().forEach((producer, expected) -> {
                    List<Waiting> refused = rest.remove(producer);
                    if (refused != null) {
                        refused.forEach(w -> w.done().complete(new PushOutcome.Gap(expected)));
                    }
                });
                if (rest.size() == included.size() || attempt > 3) {
                    throw gap;
                }
                included = rest;
                continue;
            } catch (StreamDeletedException deleted) {
                close(deleted);
                throw deleted;
            } catch (RuntimeException e) {
                // The ingester's view may be off after a failure: the next round opens the table again.
                opened = null;
                throw e;
            }
            if (result.isPresent()) {
                lastVersion = result.get().tableVersion();
                commits++;
            } else if (lastVersion < 0) {
                lastVersion = opened.table().version();
            }
            Map<PartitionKey, Long> after = opened.ingester().positions();
            long version = lastVersion;
            included.forEach((producer, waiting) -> {
                long committed = next(after.get(PartitionKey.producer(producer))) - 1;
                waiting.forEach(w -> w.done().complete(new PushOutcome.Committed(committed, version, false)));
            });
            plan.duplicates.forEach((producer, waiting) -> {
                long committed = next(after.get(PartitionKey.producer(producer))) - 1;
                waiting.forEach(w -> w.done().complete(new PushOutcome.Committed(committed, version, true)));
            });
            plan.gapped.forEach((producer, waiting) -> {
                long expected = next(after.get(PartitionKey.producer(producer)));
                waiting.forEach(w -> w.done().complete(new PushOutcome.Gap(expected)));
            });
            if (result.isPresent()) {
                LOG.debugf("stream %s: %d pushes of %d producers in table version %d", name, round.size(),
                        byProducer.size(), version);
            }
            return;
        }
    }

    /** A producer new to the table starts at sequence 0. */
    private static long next(Long position) {
        return position == null ? 0 : position;
    }

    /**
     * Which waiting pushes a round commits: per producer, the run of consecutive sequences from the table's next one
     * (a sequence pushed twice is committed once, both pushes acknowledged); below it duplicates; beyond a gap refused.
     */
    private record Plan(Map<String, List<Waiting>> included, Map<String, List<Waiting>> duplicates,
            Map<String, List<Waiting>> gapped) {

        static Plan of(Map<String, List<Waiting>> byProducer, Map<PartitionKey, Long> known) {
            Map<String, List<Waiting>> included = new LinkedHashMap<>();
            Map<String, List<Waiting>> duplicates = new HashMap<>();
            Map<String, List<Waiting>> gapped = new HashMap<>();
            byProducer.forEach((producer, waiting) -> {
                long next = next(known.get(PartitionKey.producer(producer)));
                long lastIncluded = -1;
                for (Waiting w : waiting) {
                    long seq = w.push().sequence();
                    Map<String, List<Waiting>> into;
                    if (seq == lastIncluded) {
                        into = included; // the same batch twice in one round: committed once, both acknowledged
                    } else if (seq < next) {
                        into = duplicates;
                    } else if (seq == next) {
                        into = included;
                        lastIncluded = seq;
                        next++;
                    } else {
                        into = gapped;
                    }
                    into.computeIfAbsent(producer, k -> new ArrayList<>()).add(w);
                }
            });
            return new Plan(included, duplicates, gapped);
        }

        /** The included pushes as one batch: each producer a position, each record at its batch's sequence. */
        MicroBatch batch(Map<String, List<Waiting>> included) {
            MicroBatch.Builder builder = MicroBatch.builder();
            included.forEach((producer, waiting) -> {
                List<SourceRecord> records = new ArrayList<>();
                long last = -1;
                for (Waiting w : waiting) {
                    if (w.push().sequence() == last) {
                        continue; // pushed twice: its records once
                    }
                    last = w.push().sequence();
                    for (Push.Record r : w.push().records()) {
                        records.add(new SourceRecord(producer, PartitionKey.PRODUCER, last, r.timestampMs(), r.key(),
                                r.value()));
                    }
                }
                builder.addRun(PartitionKey.producer(producer), records);
            });
            return builder.build();
        }
    }
}
