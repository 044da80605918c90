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
        List<TopicRecreation> topicRecreations) {

    public IngestionStatus(State state, String stateMessage, Instant lastCommitAt, long tableVersion,
            long rowsIngested, long decodeFailures, List<PartitionStatus> partitions) {
        this(state, stateMessage, lastCommitAt, tableVersion, rowsIngested, decodeFailures, partitions, List.of());
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

    /** {@code committedOffset} is the next offset to ingest, from the table's log; {@code lag} is end offset minus it. */
    public record PartitionStatus(String topic, int partition, long committedOffset, long lag) {}
}
