package io.tributary.ingest;

import io.tributary.delta.TableSnapshot;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.PartitionPosition;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link StreamIngester}'s view of the table's positions, as of its last commit or conflict: the next offset per
 * partition, and the details behind it (topic ids, refill marks). Written by the ingesting thread, read by any.
 */
final class KnownPositions {
    private volatile Map<PartitionKey, Long> nexts;
    private volatile Map<PartitionKey, PartitionPosition> details;

    KnownPositions(Map<PartitionKey, PartitionPosition> details) {
        set(details);
    }

    Map<PartitionKey, Long> nexts() {
        return nexts;
    }

    Map<PartitionKey, PartitionPosition> details() {
        return details;
    }

    /** Takes the table's positions as they are now (they may have gone down: a recreated topic's reset). */
    void refresh(TableSnapshot table) {
        set(table.positionDetails());
    }

    /** After a conflict without topic ids: {@code committed} partitions only ever move forward. */
    Map<PartitionKey, Long> merge(Map<PartitionKey, Long> known, Map<PartitionKey, Long> committed) {
        Map<PartitionKey, Long> merged = new HashMap<>(known);
        committed.forEach((key, next) -> merged.merge(key, next, Math::max));
        nexts = Map.copyOf(merged);
        return nexts;
    }

    /** The ranges landed on top of {@code known}. */
    void committed(Map<PartitionKey, Long> known, Map<PartitionKey, OffsetRange> ranges) {
        Map<PartitionKey, Long> after = new HashMap<>(known);
        ranges.forEach((key, range) -> after.put(key, range.next()));
        Map<PartitionKey, PartitionPosition> detailsAfter = new HashMap<>(details);
        ranges.forEach((key, range) -> {
            PartitionPosition prior = detailsAfter.get(key);
            Optional<String> id = range.topicId() != null ? Optional.of(range.topicId())
                    : prior == null ? Optional.empty() : prior.topicId();
            detailsAfter.put(key, new PartitionPosition(range.next(), id, range.refill(),
                    prior == null ? Optional.empty() : prior.recreated(), 0,
                    prior == null ? Optional.empty() : prior.maxTimestamp(),
                    prior == null ? Optional.empty() : prior.lastCommitAt(), range.lossAfter(prior)));
        });
        nexts = Map.copyOf(after);
        details = Map.copyOf(detailsAfter);
    }

    /** Positions of the batch's topics that have no id yet adopt the current one in the same commit. */
    void adoptIds(Map<PartitionKey, OffsetRange> ranges, Map<String, String> ids) {
        details.forEach((p, at) -> {
            String id = ids.get(p.topic());
            if (id != null && at.topicId().isEmpty() && !ranges.containsKey(p)) {
                ranges.put(p, new OffsetRange(at.next(), at.next(), 0, id, at.refill(), null));
            }
        });
    }

    /** A partition whose position now belongs to another topic id than {@code ids} names (reset by another writer). */
    Optional<PartitionKey> movedTopic(Collection<PartitionKey> partitions, Map<String, String> ids) {
        for (PartitionKey p : partitions) {
            PartitionPosition at = details.get(p);
            String id = ids.get(p.topic());
            if (at != null && id != null && at.topicId().isPresent() && !at.topicId().get().equals(id)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private void set(Map<PartitionKey, PartitionPosition> now) {
        Map<PartitionKey, PartitionPosition> copy = Map.copyOf(now);
        Map<PartitionKey, Long> out = new HashMap<>();
        copy.forEach((k, v) -> out.put(k, v.next()));
        details = copy;
        nexts = Map.copyOf(out);
    }
}
