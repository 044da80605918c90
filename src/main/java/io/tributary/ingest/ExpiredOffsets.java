package io.tributary.ingest;

import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Offsets Kafka deleted before the stream read them. A consumer sent to a position below a partition's log start
 * (retention passed while the stream was stopped or behind, or someone ran DeleteRecords) goes on from the log's
 * start, and a Lambda event source mapping does the same, so the batch simply begins past the table's position. Gaps
 * are normal too (transaction markers, compacted-away records), and those lose nothing: the offsets between the
 * table's position and the batch's first record are lost only where the log now starts above the position. Kafka is
 * asked only for partitions whose batch begins past the position, and once per batch.
 */
final class ExpiredOffsets {
    private final TopicIds topics;
    private final Map<PartitionKey, Long> logStarts = new HashMap<>();

    ExpiredOffsets(TopicIds topics) {
        this.topics = topics;
    }

    /** Per partition of {@code pending} that lost offsets below its first record: the range lost. */
    Map<PartitionKey, OffsetRange.Lost> in(Pending pending, Map<PartitionKey, Long> positions) {
        Map<PartitionKey, Long> gapped = new HashMap<>();
        pending.partitions.forEach((p, records) -> {
            Long position = positions.get(p);
            if (position != null && records.get(0).offset() > position) {
                gapped.put(p, position);
            }
        });
        if (gapped.isEmpty()) {
            return Map.of();
        }
        Set<PartitionKey> unknown = new HashSet<>(gapped.keySet());
        unknown.removeAll(logStarts.keySet());
        if (!unknown.isEmpty()) {
            logStarts.putAll(topics.startOffsets(unknown));
        }
        Map<PartitionKey, OffsetRange.Lost> lost = new HashMap<>();
        Instant now = Instant.now();
        gapped.forEach((p, position) -> {
            Long start = logStarts.get(p);
            if (start != null && start > position) {
                List<SourceRecord> records = pending.partitions.get(p);
                lost.put(p, new OffsetRange.Lost(position, Math.min(start, records.get(0).offset()), now));
            }
        });
        return lost;
    }
}
