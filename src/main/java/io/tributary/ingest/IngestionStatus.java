package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.PartitionPosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * SPEC 2.3 {@code state}, {@code state_message} and {@code ingestion_status}. {@code validThrough} is the stream's
 * freshness: the oldest of its partitions' newest committed record timestamps (see {@link #validThrough(List)}).
 */
public record IngestionStatus(
        State state,
        String stateMessage,
        Instant lastCommitAt,
        long tableVersion,
        long rowsIngested,
        long decodeFailures,
        List<PartitionStatus> partitions,
        List<TopicRecreation> topicRecreations,
        Instant validThrough,
        List<LostOffsets> lostOffsets) {

    public IngestionStatus(State state, String stateMessage, Instant lastCommitAt, long tableVersion,
            long rowsIngested, long decodeFailures, List<PartitionStatus> partitions) {
        this(state, stateMessage, lastCommitAt, tableVersion, rowsIngested, decodeFailures, partitions, List.of());
    }

    /** {@code validThrough} follows from the partitions. */
    public IngestionStatus(State state, String stateMessage, Instant lastCommitAt, long tableVersion,
            long rowsIngested, long decodeFailures, List<PartitionStatus> partitions,
            List<TopicRecreation> topicRecreations) {
        this(state, stateMessage, lastCommitAt, tableVersion, rowsIngested, decodeFailures, partitions,
                topicRecreations, validThrough(partitions), List.of());
    }

    /**
     * {@code STALLED}: records wait and none was committed for the stall window, or the oldest waiting record has
     * waited longer than the staleness bound (the server's watchdog, SPEC 2.3); the message says what is stuck.
     */
    public enum State { RUNNING, STALLED, FAILED }

    /**
     * The newest record timestamp up to which every partition is in the table: the minimum over the partitions of
     * each one's newest committed record timestamp (the measure Iceberg's Kafka Connect sink keeps). Null while some
     * partition has no committed record (a partition that never gets one keeps it absent: nothing says its first
     * record will not be older) and for a stream without partitions.
     */
    public static Instant validThrough(List<PartitionStatus> partitions) {
        Instant min = null;
        for (PartitionStatus p : partitions) {
            if (p.validThrough() == null) {
                return null;
            }
            if (min == null || p.validThrough().isBefore(min)) {
                min = p.validThrough();
            }
        }
        return min;
    }

    /**
     * A topic the stream reads was found deleted and created again under the same name, at {@code at}: its positions
     * were reset and the new topic is ingested from its beginning. {@code previousTopicId} is null when the table's
     * positions predate topic ids (then a position beyond the new topic's end gave it away).
     */
    public record TopicRecreation(String topic, String previousTopicId, String topicId, Instant at) {

        public String message() {
            return "topic " + topic + " was deleted and created again ("
                    + (previousTopicId == null ? "its partitions ended before the table's positions; new topic id "
                            + topicId : "topic id " + previousTopicId + " -> " + topicId)
                    + ") and found so at " + at + "; it is ingested from its beginning";
        }

        /** The last recreation of each topic the positions record, by topic name. */
        public static List<TopicRecreation> of(Map<PartitionKey, PartitionPosition> positions) {
            Map<String, TopicRecreation> byTopic = new TreeMap<>();
            positions.forEach((key, position) -> position.recreated().ifPresent(r -> byTopic.merge(key.topic(),
                    new TopicRecreation(key.topic(), r.previousTopicId().orElse(null), r.topicId(), r.at()),
                    (a, b) -> a.at().isAfter(b.at()) ? a : b)));
            return List.copyOf(new ArrayList<>(byTopic.values()));
        }
    }

    /**
     * Offsets of a partition that Kafka had deleted (retention, DeleteRecords) before the stream read them: the last
     * such range, {@code fromOffset} to {@code toOffset} (exclusive), found at {@code at}, and every offset of the
     * partition lost so far. The stream went on from the first offset the topic still had; nothing can bring the lost
     * records back, so the table says which they were rather than skip them without a word.
     */
    public record LostOffsets(String topic, int partition, long fromOffset, long toOffset, long totalOffsetsLost,
            Instant at) {

        public String message() {
            return "offsets " + fromOffset + " to " + (toOffset - 1) + " of " + topic + "/" + partition
                    + " were deleted from the topic (retention.ms, retention.bytes or DeleteRecords) before the stream"
                    + " read them, found at " + at + ": " + (toOffset - fromOffset) + " offsets lost ("
                    + totalOffsetsLost + " on this partition in all); keep the topic's retention longer than the stream"
                    + " may stay stopped or behind";
        }

        /** The last loss of each partition the positions record, in partition order. */
        public static List<LostOffsets> of(Map<PartitionKey, PartitionPosition> positions) {
            List<LostOffsets> out = new ArrayList<>();
            new TreeMap<>(positions).forEach((key, position) -> position.lost().ifPresent(l -> out.add(
                    new LostOffsets(key.topic(), key.partition(), l.from(), l.to(), l.total(), l.at()))));
            return List.copyOf(out);
        }
    }

    /**
     * {@code committedOffset} is the next offset to ingest, from the table's log; {@code lag} is end offset minus it
     * (-1: unknown); {@code lastCommitAt} when a commit last added records of the partition and {@code validThrough}
     * the newest committed record timestamp of it, both from the table's position domain (null: none yet).
     */
    public record PartitionStatus(String topic, int partition, long committedOffset, long lag, Instant lastCommitAt,
            Instant validThrough) {

        public PartitionStatus(String topic, int partition, long committedOffset, long lag) {
            this(topic, partition, committedOffset, lag, null, null);
        }

        /** What the table's position records, with the lag as the caller knows it. */
        public static PartitionStatus of(PartitionKey key, PartitionPosition position, long lag) {
            return new PartitionStatus(key.topic(), key.partition(), position.next(), lag,
                    position.lastCommitAt().orElse(null), position.maxTimestamp().orElse(null));
        }
    }
}
