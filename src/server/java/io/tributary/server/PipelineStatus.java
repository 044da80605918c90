package io.tributary.server;

import io.tributary.delta.TableSnapshot;
import io.tributary.delta.PartitionKey;
import io.tributary.ingest.CommitResult;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.IngestionStatus.PartitionStatus;
import io.tributary.ingest.IngestionStatus.State;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A stream's status as its pipeline last saw it: positions from the table's log at open and at each commit, end
 * offsets from Kafka at each probe. Reading it costs nothing, so GET never opens the Delta log.
 */
final class PipelineStatus {

    private volatile State state = State.RUNNING;
    private volatile String message;
    private volatile Instant lastCommitAt;
    private volatile long tableVersion = -1;
    private volatile long rowsIngested;
    private volatile long decodeFailures;
    private volatile Map<PartitionKey, Long> positions = Map.of();
    /** The last recreation of each topic, by name, as the table records it. */
    private volatile Map<String, IngestionStatus.TopicRecreation> recreations = Map.of();
    /** The last loss of each partition, as the table records it. */
    private volatile Map<PartitionKey, IngestionStatus.LostOffsets> lost = Map.of();
    private final Map<PartitionKey, Long> endOffsets = new ConcurrentHashMap<>();
    /** Topics the stream names that the cluster does not have (not created yet, or deleted), as last looked up. */
    private volatile List<String> missingTopics = List.of();

    void opened(TableSnapshot.Status table, Map<PartitionKey, Long> positions) {
        tableVersion = table.version();
        lastCommitAt = table.lastCommitAt().orElse(null);
        rowsIngested = table.numRecords();
        decodeFailures = table.decodeFailures();
        this.positions = positions;
    }

    synchronized void committed(CommitResult result) {
        tableVersion = result.tableVersion();
        lastCommitAt = result.committedAt();
        rowsIngested += result.rows();
        decodeFailures += result.decodeFailures();
        positions = result.positions();
        if (!result.recreations().isEmpty()) {
            Map<String, IngestionStatus.TopicRecreation> merged = new TreeMap<>(recreations);
            result.recreations().forEach(r -> merged.put(r.topic(), r));
            recreations = Map.copyOf(merged);
        }
        if (!result.lost().isEmpty()) {
            Map<PartitionKey, IngestionStatus.LostOffsets> merged = new TreeMap<>(lost);
            result.lost().forEach(l -> merged.put(new PartitionKey(l.topic(), l.partition()), l));
            lost = Map.copyOf(merged);
        }
        running();
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
    }

    void endOffsets(Map<PartitionKey, Long> ends) {
        endOffsets.putAll(ends);
    }

    void running() {
        state = State.RUNNING;
        message = null;
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
    }

    State state() {
        return state;
    }

    /** Lag of a partition: end offset minus the table's position; unknown (-1) before either is known. */
    long lag(PartitionKey key) {
        Long end = endOffsets.get(key);
        if (end == null) {
            return -1;
        }
        return Math.max(0, end - positions.getOrDefault(key, 0L));
    }

    IngestionStatus snapshot() {
        Map<PartitionKey, Long> pos = new TreeMap<>(positions);
        for (PartitionKey key : endOffsets.keySet()) {
            pos.putIfAbsent(key, 0L);
        }
        List<PartitionStatus> partitions = new ArrayList<>(pos.size());
        pos.forEach((key, committed) -> {
            Long end = endOffsets.get(key);
            partitions.add(new PartitionStatus(key.topic(), key.partition(), committed,
                    end == null ? 0 : Math.max(0, end - committed)));
        });
        return new IngestionStatus(state, message(), lastCommitAt, tableVersion, rowsIngested, decodeFailures,
                List.copyOf(partitions), List.copyOf(new TreeMap<>(recreations).values()),
                List.copyOf(new TreeMap<>(lost).values()));
    }
}
