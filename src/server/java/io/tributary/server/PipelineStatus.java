package io.tributary.server;

import io.tributary.delta.TableSnapshot;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.PartitionPosition;
import io.tributary.ingest.CommitResult;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.IngestionStatus.PartitionStatus;
import io.tributary.ingest.IngestionStatus.State;
import io.tributary.ingest.SourceRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A stream's status as its pipeline last saw it: positions from the table's log at open and at each commit, end
 * offsets from Kafka at each probe. Reading it costs nothing, so GET never opens the Delta log. The state it reports
 * is the pipeline's own (RUNNING, FAILED) with {@link StallWatch}'s verdict laid over it (STALLED).
 */
final class PipelineStatus {

    private volatile State state = State.RUNNING;
    private volatile String message;
    /** The last failure was that Kafka could not be reached: the consumer stage, which the watchdog may call a stall. */
    private volatile boolean unreachable;
    private volatile Instant lastCommitAt;
    private volatile long tableVersion = -1;
    /**
     * The version up to which rows, failures and positions are the table's: each commit of this pipeline moves it on
     * only when it follows it directly, so a version another writer made in between leaves it behind and
     * {@link StatusRefresh} reads the table.
     */
    private volatile long exactThrough = -1;
    /** Never read, never refreshed: far enough back, without the overflow an extreme value would risk. */
    private volatile long lastReadNanos = System.nanoTime() - 2 * StatusRefresh.READ_WINDOW_NANOS;
    private volatile long lastRefreshNanos = System.nanoTime() - 2 * StatusRefresh.INTERVAL_NANOS;
    private volatile long rowsIngested;
    private volatile long decodeFailures;
    private volatile Map<PartitionKey, Long> positions = Map.of();
    /** Per partition, the newest committed record timestamp and the last commit that added records (the table's). */
    private volatile Map<PartitionKey, Instant> maxTimestamps = Map.of();
    private volatile Map<PartitionKey, Instant> partitionCommits = Map.of();
    /** The last recreation of each topic, by name, as the table records it. */
    private volatile Map<String, IngestionStatus.TopicRecreation> recreations = Map.of();
    /** The last loss of each partition, as the table records it. */
    private volatile Map<PartitionKey, IngestionStatus.LostOffsets> lost = Map.of();
    private final Map<PartitionKey, Long> endOffsets = new ConcurrentHashMap<>();
    /** Partitions whose log ends before the table's position under the same topic id: {end, position}. */
    private volatile Map<PartitionKey, long[]> truncated = Map.of();
    /** Topics the stream names that the cluster does not have (not created yet, or deleted), as last looked up. */
    private volatile List<String> missingTopics = List.of();
    private final StallWatch watch = new StallWatch();
    /** What the writer is doing now (decode, write, commit), for the watchdog's message; null: nothing known. */
    private volatile Supplier<String> writerStage = () -> null;

    /** The watchdog's bounds: 10 trigger intervals without progress, and the oldest waiting record's age. */
    void settings(PipelineSettings settings) {
        watch.settings(settings);
    }

    void writerStage(Supplier<String> stage) {
        writerStage = stage;
    }

    /** Whether a consumer runs (or its pipeline retries); an idle stream is never stalled by the lag rule. */
    void active(boolean active) {
        watch.active(active);
    }

    synchronized void opened(TableSnapshot.Status table, Map<PartitionKey, Long> positions) {
        tableVersion = table.version();
        exactThrough = table.version();
        lastCommitAt = table.lastCommitAt().orElse(null);
        rowsIngested = table.numRecords();
        decodeFailures = table.decodeFailures();
        positions(positions);
    }

    /** The freshness the table records per partition (see {@link PartitionPosition}). */
    synchronized void freshness(Map<PartitionKey, PartitionPosition> fromTable) {
        Map<PartitionKey, Instant> max = new HashMap<>();
        Map<PartitionKey, Instant> commits = new HashMap<>();
        fromTable.forEach((key, p) -> {
            p.maxTimestamp().ifPresent(t -> max.put(key, t));
            p.lastCommitAt().ifPresent(t -> commits.put(key, t));
        });
        maxTimestamps = Map.copyOf(max);
        partitionCommits = Map.copyOf(commits);
    }

    synchronized void committed(CommitResult result) {
        if (result.tableVersion() == exactThrough + 1) {
            exactThrough = result.tableVersion();
        }
        tableVersion = Math.max(tableVersion, result.tableVersion());
        lastCommitAt = result.committedAt();
        rowsIngested += result.rows();
        decodeFailures += result.decodeFailures();
        Map<PartitionKey, Instant> max = new HashMap<>(maxTimestamps);
        Map<PartitionKey, Instant> commits = new HashMap<>(partitionCommits);
        if (!result.recreations().isEmpty()) {
            Map<String, IngestionStatus.TopicRecreation> merged = new TreeMap<>(recreations);
            result.recreations().forEach(r -> merged.put(r.topic(), r));
            recreations = Map.copyOf(merged);
            // A reset starts the new topic without a timestamp, as the table's positions do.
            Set<String> reset = new HashSet<>();
            result.recreations().forEach(r -> reset.add(r.topic()));
            max.keySet().removeIf(k -> reset.contains(k.topic()));
            // The old topic's end offsets say nothing of the new one: a partition the new topic lacks would keep
            // its old end as a lag for ever (and stall an idle stream). The next probe reads the new topic's.
            endOffsets.keySet().removeIf(k -> reset.contains(k.topic()));
            watch.forgetTopics(reset);
        }
        if (!result.lost().isEmpty()) {
            Map<PartitionKey, IngestionStatus.LostOffsets> merged = new TreeMap<>(lost);
            result.lost().forEach(l -> merged.put(new PartitionKey(l.topic(), l.partition()), l));
            lost = Map.copyOf(merged);
        }
        // The same values the commit wrote into the position domains, from the same records.
        for (List<SourceRecord> records : result.committed()) {
            if (records.isEmpty()) {
                continue;
            }
            PartitionKey key = new PartitionKey(records.get(0).topic(), records.get(0).partition());
            long newest = -1;
            for (SourceRecord r : records) {
                newest = Math.max(newest, r.timestampMs());
            }
            if (newest >= 0) {
                Instant t = Instant.ofEpochMilli(newest);
                max.merge(key, t, (a, b) -> a.isAfter(b) ? a : b);
            }
            commits.put(key, result.committedAt());
        }
        maxTimestamps = Map.copyOf(max);
        partitionCommits = Map.copyOf(commits);
        positions(merged(result));
        watch.progress();
        running();
    }

    /**
     * The commit's positions over the ones known: a partition another writer holds may be further on in the table
     * (read by {@link StatusRefresh}) than this writer knows, so it never moves back, except where the commit reset a
     * recreated topic.
     */
    private Map<PartitionKey, Long> merged(CommitResult result) {
        Set<String> reset = new HashSet<>();
        result.recreations().forEach(r -> reset.add(r.topic()));
        Map<PartitionKey, Long> merged = new HashMap<>(positions);
        result.positions().forEach((key, next) -> {
            if (reset.contains(key.topic())) {
                merged.put(key, next);
            } else {
                merged.merge(key, next, Math::max);
            }
        });
        return Map.copyOf(merged);
    }

    /** GET asked for the status: {@link StatusRefresh} keeps it in step with the table while it is being asked for. */
    void read(long now) {
        lastReadNanos = now;
    }

    boolean refreshDue(long now) {
        return now - lastReadNanos < StatusRefresh.READ_WINDOW_NANOS
                && now - lastRefreshNanos >= StatusRefresh.INTERVAL_NANOS;
    }

    void refreshing(long now) {
        lastRefreshNanos = now;
    }

    /** Whether the table has a version this status does not account for. */
    boolean behind(long latestVersion) {
        return latestVersion > exactThrough;
    }

    /**
     * What the table says now, when that is newer than what this pipeline knows: rows, failures, positions and
     * freshness of every writer. A status read before a commit of this pipeline that is already counted is dropped.
     */
    synchronized void refreshed(TableSnapshot.Status table, Map<PartitionKey, PartitionPosition> details) {
        if (table.version() <= exactThrough || table.version() < tableVersion) {
            return;
        }
        tableVersion = table.version();
        exactThrough = table.version();
        lastCommitAt = table.lastCommitAt().orElse(lastCommitAt);
        rowsIngested = table.numRecords();
        decodeFailures = table.decodeFailures();
        Map<PartitionKey, Long> fromTable = new HashMap<>();
        details.forEach((k, v) -> fromTable.put(k, v.next()));
        positions(Map.copyOf(fromTable));
        freshness(details);
        recreations(IngestionStatus.TopicRecreation.of(details));
        lost(IngestionStatus.LostOffsets.of(details));
    }

    void lost(List<IngestionStatus.LostOffsets> fromTable) {
        Map<PartitionKey, IngestionStatus.LostOffsets> byPartition = new TreeMap<>();
        fromTable.forEach(l -> byPartition.put(new PartitionKey(l.topic(), l.partition()), l));
        lost = Map.copyOf(byPartition);
    }

    void recreations(List<IngestionStatus.TopicRecreation> fromTable) {
        Map<String, IngestionStatus.TopicRecreation> byTopic = new TreeMap<>();
        fromTable.forEach(r -> byTopic.put(r.topic(), r));
        recreations = Map.copyOf(byTopic);
    }

    void positions(Map<PartitionKey, Long> positions) {
        this.positions = positions;
        watch.positions(positions);
    }

    /**
     * Of the partitions a probe just read the end offsets of ({@code probed}), those whose log ends before the table's
     * position under the same topic id (see {@code StreamIngester.truncatedLogs}), each with its end and the
     * position: while any is, the stream is FAILED saying so.
     *
     * @return the partitions found so that were not known so before (to log once)
     */
    synchronized Map<PartitionKey, long[]> truncatedLogs(Map<PartitionKey, Long> ends,
            Map<PartitionKey, Long> positionsAhead) {
        Map<PartitionKey, long[]> next = new TreeMap<>(truncated);
        next.keySet().removeAll(ends.keySet());
        Map<PartitionKey, long[]> added = new TreeMap<>();
        positionsAhead.forEach((p, position) -> {
            long[] v = {ends.get(p), position};
            if (!truncated.containsKey(p)) {
                added.put(p, v);
            }
            next.put(p, v);
        });
        truncated = Map.copyOf(next);
        return added;
    }

    static String truncationMessage(Map<PartitionKey, long[]> truncated) {
        StringBuilder b = new StringBuilder();
        truncated.forEach((p, v) -> {
            b.append(b.length() == 0 ? "" : "; ").append("the log of ").append(p.topic()).append('/')
                    .append(p.partition()).append(" ends at offset ").append(v[0])
                    .append(", before the table's position ").append(v[1])
                    .append(", and its topic id is unchanged: Kafka lost records the table already holds (an unclean "
                            + "leader election, a truncated or restored log). Records it writes at offsets below ")
                    .append(v[1]).append(" cannot be told from the table's and are not ingested; ingestion goes on "
                            + "from offset ").append(v[1]).append(" once the partition reaches it");
        });
        return b.toString();
    }

    /**
     * As {@link #endOffsets}, from a check that covered every partition the stream reads now (the idle watch's): a
     * partition it did not report (its topic deleted, or no longer matched by the pattern) keeps no end offset, so no
     * lag of records that are gone with it stays behind.
     */
    void allEndOffsets(Map<PartitionKey, Long> ends) {
        endOffsets.keySet().retainAll(ends.keySet());
        watch.retain(ends.keySet());
        endOffsets(ends);
    }

    /** End offsets from a successful probe: they keep the lag current and tell the watchdog whether records wait. */
    void endOffsets(Map<PartitionKey, Long> ends) {
        endOffsets.putAll(ends);
        watch.endOffsets(ends, positions);
    }

    /**
     * Kafka answered a consumer that has nothing to wait for yet: its session started, or it has no partition
     * assigned (joining its group, another server holds them all, only missing topics).
     */
    void kafkaAnswered() {
        watch.progress();
    }

    /** Every record Kafka has was read and nothing is pending (a probe of the consumer, or the idle watch). */
    void caughtUp() {
        watch.caughtUp();
    }

    void running() {
        state = State.RUNNING;
        message = null;
        unreachable = false;
    }

    void missingTopics(java.util.Collection<String> missing) {
        missingTopics = List.copyOf(new java.util.TreeSet<>(missing));
    }

    /**
     * A running stream whose topic is gone waits for it rather than failing: a topic is often deleted to be created
     * again, and the new one is ingested from its beginning (SPEC 4). The message says which and that it waits.
     */
    private String message() {
        List<String> missing = missingTopics;
        if (state == State.FAILED || missing.isEmpty()) {
            return message;
        }
        String names = missing.stream().map(t -> "'" + t + "'").collect(java.util.stream.Collectors.joining(", "));
        return (missing.size() == 1 ? "topic " + names + " does not" : "topics " + names + " do not")
                + " exist on the cluster (not created yet, or deleted): the stream waits and ingests "
                + (missing.size() == 1 ? "it" : "them") + " from the beginning once created";
    }

    void failed(String why) {
        message = why;
        state = State.FAILED;
        unreachable = false;
    }

    /** As {@link #failed}, for a stream whose brokers do not answer: while records wait that is a stall of its consumer. */
    void unreachable(String why) {
        failed(why);
        unreachable = true;
    }

    /** The state as reported, the watchdog's verdict included. */
    State state() {
        return verdict().state();
    }

    /** Lag of a partition: end offset minus the table's position; unknown (-1) before either is known. */
    long lag(PartitionKey key) {
        Long end = endOffsets.get(key);
        if (end == null) {
            return -1;
        }
        return Math.max(0, end - positions.getOrDefault(key, 0L));
    }

    /** When a commit last added records of the partition, if one did. */
    Instant lastCommitAt(PartitionKey key) {
        return partitionCommits.get(key);
    }

    /** The stream's valid_through as the table records it (see {@link IngestionStatus#validThrough}). */
    Instant validThrough() {
        return IngestionStatus.validThrough(partitions());
    }

    private List<PartitionStatus> partitions() {
        Map<PartitionKey, Long> pos = new TreeMap<>(positions);
        Map<PartitionKey, Instant> max = maxTimestamps;
        Map<PartitionKey, Instant> commits = partitionCommits;
        List<PartitionStatus> partitions = new ArrayList<>(pos.size() + endOffsets.size());
        pos.forEach((key, committed) -> {
            Long end = endOffsets.get(key);
            partitions.add(new PartitionStatus(key.topic(), key.partition(), committed,
                    end == null ? 0 : Math.max(0, end - committed), commits.get(key), max.get(key)));
        });
        return partitions;
    }

    private record Verdict(State state, String message) {}

    private Verdict verdict() {
        State own = state;
        String ownMessage = message();
        if (own == State.FAILED && !unreachable) {
            // An error the pipeline names (storage, the registry database, credentials, a deleted stream): its
            // message already says what is stuck, and it is retried or final as before.
            return new Verdict(own, ownMessage);
        }
        Map<PartitionKey, long[]> lostLogs = truncated;
        if (!lostLogs.isEmpty()) {
            // Records Kafka writes below the table's position are dropped as already ingested: never silently.
            return new Verdict(State.FAILED, truncationMessage(lostLogs));
        }
        String stall = watch.stalled(lagsByPartition(), writerStage.get(), !missingTopics.isEmpty());
        if (stall == null) {
            return new Verdict(own, ownMessage);
        }
        return new Verdict(State.STALLED, ownMessage == null ? stall : stall + "; last error: " + ownMessage);
    }

    private Map<PartitionKey, Long> lagsByPartition() {
        Map<PartitionKey, Long> lags = new TreeMap<>();
        positions.keySet().forEach(k -> lags.put(k, lag(k)));
        endOffsets.keySet().forEach(k -> lags.put(k, lag(k)));
        return lags;
    }

    IngestionStatus snapshot() {
        Map<PartitionKey, Long> pos = new TreeMap<>(positions);
        List<PartitionStatus> partitions = partitions();
        for (PartitionKey key : endOffsets.keySet()) {
            if (!pos.containsKey(key)) {
                // Known to Kafka, not to the table yet: it counts towards valid_through as a partition without data.
                partitions.add(new PartitionStatus(key.topic(), key.partition(), 0, Math.max(0, endOffsets.get(key)),
                        null, null));
            }
        }
        partitions.sort(java.util.Comparator.comparing(PartitionStatus::topic).thenComparingInt(PartitionStatus::partition));
        Verdict verdict = verdict();
        return new IngestionStatus(verdict.state(), verdict.message(), lastCommitAt, tableVersion, rowsIngested,
                decodeFailures, List.copyOf(partitions), List.copyOf(new TreeMap<>(recreations).values()),
                IngestionStatus.validThrough(partitions()), List.copyOf(new TreeMap<>(lost).values()));
    }
}
