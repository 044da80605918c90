package io.tributary.ingest;

import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.PartitionPosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which of a table's topics were deleted and created again, and the positions that start them over: for
 * {@link StreamIngester}, which commits the plan. A topic was recreated when a recorded topic id is not the current
 * one, or, for positions recorded before ids were, when a position lies beyond the partition's end offset (offsets of
 * one topic never shrink) or beyond the topic's partitions. Its positions go to 0 with the new id, so the new topic is
 * read from its beginning; partitions the new topic lacks go to 0 too, so one added later is read from its beginning.
 */
final class TopicResets {
    private TopicResets() {}

    /** The positions to reset, and what the status reports about it. */
    record Plan(Map<PartitionKey, OffsetRange> resets, List<IngestionStatus.TopicRecreation> recreations) {}

    /** What was reset, in which table version. */
    record Reset(List<IngestionStatus.TopicRecreation> recreations, long version) {
        static final Reset NONE = new Reset(List.of(), -1);

        Reset {
            recreations = List.copyOf(recreations);
        }

        Set<String> topics() {
            Set<String> t = new HashSet<>();
            recreations.forEach(r -> t.add(r.topic()));
            return t;
        }
    }

    /** A partition of the batch now belongs to another topic id than the one an attempt was planned with. */
    static final class Moved extends RuntimeException {
        final PartitionKey partition;

        Moved(PartitionKey partition) {
            super(null, null, false, false);
            this.partition = partition;
        }
    }

    /** @param known the table's positions; @param current the topics as Kafka has them now */
    static Plan plan(Map<PartitionKey, PartitionPosition> known, Map<String, TopicIds.Topic> current,
            TopicIds topicIds, Instant now) {
    Map<PartitionKey, OffsetRange> resets = new LinkedHashMap<>();
    List<IngestionStatus.TopicRecreation> recreations = new ArrayList<>();
    for (Map.Entry<String, TopicIds.Topic> t : current.entrySet()) {
        Map<PartitionKey, PartitionPosition> ofTopic = new TreeMap<>();
        known.forEach((k, v) -> {
            if (k.topic().equals(t.getKey())) {
                ofTopic.put(k, v);
            }
        });
        if (!recreated(ofTopic, t.getValue(), topicIds)) {
            continue;
        }
        Optional<String> previous = ofTopic.values().stream().map(PartitionPosition::topicId)
                .flatMap(Optional::stream).filter(id -> !id.equals(t.getValue().id())).findFirst();
        ofTopic.forEach((k, v) -> resets.put(k, OffsetRange.reset(0, new PartitionPosition.Recreation(
                v.topicId(), v.next(), t.getValue().id(), now))));
        recreations.add(new IngestionStatus.TopicRecreation(t.getKey(), previous.orElse(null),
                t.getValue().id(), now));
    }
        return new Plan(resets, recreations);
    }

    private static boolean recreated(Map<PartitionKey, PartitionPosition> ofTopic, TopicIds.Topic topic,
            TopicIds topicIds) {
        Set<PartitionKey> unknown = new HashSet<>();
        for (Map.Entry<PartitionKey, PartitionPosition> e : ofTopic.entrySet()) {
            PartitionPosition p = e.getValue();
            if (p.topicId().isPresent()) {
                if (!p.topicId().get().equals(topic.id())) {
                    return true;
                }
            } else if (p.next() > 0) {
                if (e.getKey().partition() >= topic.partitions()) {
                    // A topic's partitions are never taken away.
                    return true;
                }
                unknown.add(e.getKey());
            }
        }
        if (unknown.isEmpty()) {
            return false;
        }
        Map<PartitionKey, Long> ends = topicIds.endOffsets(unknown);
        for (PartitionKey k : unknown) {
            Long end = ends.get(k);
            if (end != null && end < ofTopic.get(k).next()) {
                return true;
            }
        }
        return false;
    }
}
