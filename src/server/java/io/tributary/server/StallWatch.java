package io.tributary.server;

import io.tributary.delta.PartitionKey;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The stall watchdog of one stream (SPEC 2.3 {@code STALLED}): decides, whenever the status is read, whether records
 * wait that do not reach the table. Two rules:
 *
 * <ul>
 *   <li><b>No progress</b>: a stream whose consumer runs (or whose pipeline retries) made no progress for
 *       {@link #window 10 trigger intervals}. Progress is a commit, a probe that found every record read and nothing
 *       pending, or Kafka answering a consumer that has nothing assigned. A broker that stops answering therefore
 *       stalls a stream that was flowing, while its end offsets (and so its lag) can no longer be read; a stream that
 *       never reached its brokers has no progress to compare with and is FAILED with the reason instead.
 *   <li><b>Behind</b>: the oldest record not in the table has waited longer than {@code max-staleness}, even though
 *       commits land (the stream falls behind its topic). How long a record has waited is measured from the first
 *       probe that saw the partition's end beyond the table's position: no clock but this server's is involved.
 * </ul>
 *
 * An idle stream (no consumer) is never stalled by the first rule: the idle watch found nothing waiting, or it would
 * have woken it. Thread-safe: probes and commits report from the pipeline's threads, GET reads from any.
 */
final class StallWatch {
    /** Samples kept per partition; beyond this no new one is added, which can only make the measured wait shorter. */
    private static final int MAX_SAMPLES = 512;

    private volatile long windowNanos = Duration.ofSeconds(10).toNanos();
    private volatile Duration maxStaleness = PipelineSettings.MAX_STALENESS;
    private volatile boolean active;
    /** The last progress (System.nanoTime); 0 while there was none. */
    private volatile long progressNanos;
    /** The last time Kafka told the end offsets (a probe or an idle check answered); 0: never. */
    private volatile long endsReadNanos;
    /** Per partition, end offsets in increasing order with when they were first seen beyond the table's position. */
    private final Map<PartitionKey, Deque<long[]>> waiting = new ConcurrentHashMap<>();

    void settings(PipelineSettings settings) {
        windowNanos = window(settings).toNanos();
        maxStaleness = settings.maxStaleness();
    }

    /**
     * Ten trigger intervals, and at least three end-offset probes (one a second at most), so that a quiet stream whose
     * probe finds it caught up never reads as stalled between two probes.
     */
    static Duration window(PipelineSettings settings) {
        Duration ten = settings.triggerInterval().multipliedBy(10);
        Duration probe = settings.triggerInterval().compareTo(Duration.ofSeconds(1)) > 0 ? settings.triggerInterval()
                : Duration.ofSeconds(1);
        Duration three = probe.multipliedBy(3);
        return ten.compareTo(three) >= 0 ? ten : three;
    }

    void active(boolean active) {
        this.active = active;
    }

    void progress() {
        progressNanos = System.nanoTime();
    }

    /** A probe (or idle check) found every record read and nothing pending: nothing waits. */
    void caughtUp() {
        long now = System.nanoTime();
        progressNanos = now;
        endsReadNanos = now;
        waiting.clear();
    }

    void endOffsets(Map<PartitionKey, Long> ends, Map<PartitionKey, Long> positions) {
        long now = System.nanoTime();
        endsReadNanos = now;
        ends.forEach((key, end) -> {
            if (end <= positions.getOrDefault(key, 0L)) {
                waiting.remove(key);
                return;
            }
            Deque<long[]> samples = waiting.computeIfAbsent(key, k -> new ArrayDeque<>());
            synchronized (samples) {
                long[] last = samples.peekLast();
                if ((last == null || end > last[0]) && samples.size() < MAX_SAMPLES) {
                    samples.addLast(new long[] {end, now});
                }
            }
        });
    }

    /** Only these partitions exist now: what was seen waiting on the others waits no more. */
    void retain(java.util.Set<PartitionKey> partitions) {
        waiting.keySet().retainAll(partitions);
    }

    /** The topics were deleted and created again: what was seen waiting on the old ones waits no more. */
    void forgetTopics(java.util.Set<String> topics) {
        waiting.keySet().removeIf(k -> topics.contains(k.topic()));
    }

    /** The table's positions moved: the samples they passed no longer wait. */
    void positions(Map<PartitionKey, Long> positions) {
        positions.forEach((key, next) -> {
            Deque<long[]> samples = waiting.get(key);
            if (samples != null) {
                synchronized (samples) {
                    while (!samples.isEmpty() && samples.peekFirst()[0] <= next) {
                        samples.removeFirst();
                    }
                }
            }
        });
    }

    /**
     * The reason the stream is stalled, or null when it is not.
     *
     * @param lags the lag per partition as last known (-1: unknown)
     * @param writerStage what the writer is doing with a batch ("decode", "write", "commit"), null: no batch
     * @param waitsForTopics the stream waits for topics that do not exist: that is not a stall while nothing waits
     */
    String stalled(Map<PartitionKey, Long> lags, String writerStage, boolean waitsForTopics) {
        long now = System.nanoTime();
        List<PartitionKey> lagging = lags.entrySet().stream().filter(e -> e.getValue() > 0).map(Map.Entry::getKey)
                .toList();
        long progress = progressNanos;
        if (progress != 0 && now - progress >= windowNanos && (active || !lagging.isEmpty())
                && !(waitsForTopics && lagging.isEmpty())) {
            return noProgress(now - progress, lags, lagging, writerStage, now);
        }
        return behind(now, lags);
    }

    private String noProgress(long quietNanos, Map<PartitionKey, Long> lags, List<PartitionKey> lagging,
            String writerStage, long now) {
        String seconds = seconds(quietNanos);
        String where = lagging.isEmpty() ? names(new ArrayList<>(lags.keySet())) : lagged(lagging, lags);
        if (writerStage != null) {
            String doing = switch (writerStage) {
                case "decode" -> "decoded (its writer schemas are being looked up)";
                case "write" -> "decoded and written as Parquet data files";
                default -> "committed (the Delta commit under the stream's write lock)";
            };
            return writerStage + ": nothing committed for " + seconds + " s while the batch of " + where
                    + " is still being " + doing;
        }
        long endsRead = endsReadNanos;
        String ends = endsRead == 0 ? "its partitions' end offsets were never read"
                : now - endsRead >= windowNanos ? "Kafka has not answered for " + seconds(now - endsRead)
                        + " s, so the lag is unknown"
                : "records wait";
        return "consumer: no record received and nothing committed for " + seconds + " s on " + where + " (" + ends
                + ")";
    }

    private String behind(long now, Map<PartitionKey, Long> lags) {
        Duration bound = maxStaleness;
        PartitionKey oldest = null;
        long oldestSeen = Long.MAX_VALUE;
        for (Map.Entry<PartitionKey, Deque<long[]>> e : waiting.entrySet()) {
            Deque<long[]> samples = e.getValue();
            synchronized (samples) {
                long[] first = samples.peekFirst();
                if (first != null && first[1] < oldestSeen) {
                    oldestSeen = first[1];
                    oldest = e.getKey();
                }
            }
        }
        if (oldest == null || now - oldestSeen <= bound.toNanos()) {
            return null;
        }
        List<PartitionKey> lagging = lags.entrySet().stream().filter(x -> x.getValue() > 0).map(Map.Entry::getKey)
                .toList();
        return "behind: records of " + name(oldest) + " have waited " + seconds(now - oldestSeen)
                + " s for the table, more than tributary.ingest.max-staleness (" + bound + ")"
                + (lagging.isEmpty() ? "" : "; lag " + lagged(lagging, lags));
    }

    private static String lagged(List<PartitionKey> keys, Map<PartitionKey, Long> lags) {
        return keys.stream().map(k -> name(k) + " (lag " + lags.get(k) + ")").collect(Collectors.joining(", "));
    }

    private static String names(List<PartitionKey> keys) {
        return keys.isEmpty() ? "its partitions" : keys.stream().map(StallWatch::name).collect(Collectors.joining(", "));
    }

    private static String name(PartitionKey key) {
        return key.topic() + "-" + key.partition();
    }

    private static String seconds(long nanos) {
        return Long.toString(nanos / 1_000_000_000L);
    }
}
