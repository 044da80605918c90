package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.PartitionPosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** SPEC 2.3 {@code state}, {@code state_message} and {@code ingestion_status}. */
public record IngestionStatus(
        State state,
        String stateMessage,
        Instant lastCommitAt,
        long tableVersion,
        long rowsIngested,
        long decodeFailures,
        List<PartitionStatus> partitions,
        List<TopicRecreation> topicRecreations,
        List<LostOffsets> lostOffsets) {

    public IngestionStatus(State state, String stateMessage, Instant lastCommitAt, long tableVersion,
            long rowsIngested, long decodeFailures, List<PartitionStatus> partitions) {
        this(state, stateMessage, lastCommitAt, tableVersion, rowsIngested, decodeFailures, partitions, List.of());
    }

    public IngestionStatus(State state, String stateMessage, Instant lastCommitAt, long tableVersion,
            long rowsIngested, long decodeFailures, List<PartitionStatus> partitions,
            List<TopicRecreation> topicRecreations) {
        this(state, stateMessage, lastCommitAt, tableVersion, rowsIngested, decodeFailures, partitions,
                topicRecreations, List.of());
    }

    public enum State { RUNNING, FAILED }

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

    /** {@code committedOffset} is the next offset to ingest, from the table's log; {@code lag} is end offset minus it. */
    public record PartitionStatus(String topic, int partition, long committedOffset, long lag) {}
}
