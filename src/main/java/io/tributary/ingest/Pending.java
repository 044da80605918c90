package io.tributary.ingest;

import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The part of a micro-batch the table does not have yet: per partition, the records at or above the table's position.
 * Lists are views of the batch's lists, so filtering copies no record.
 */
final class Pending {

    final Map<PartitionKey, List<SourceRecord>> partitions;
    final int size;

    private Pending(Map<PartitionKey, List<SourceRecord>> partitions, int size) {
        this.partitions = partitions;
        this.size = size;
    }

    static Pending of(Map<PartitionKey, List<SourceRecord>> records, Map<PartitionKey, Long> positions) {
        Map<PartitionKey, List<SourceRecord>> kept = new LinkedHashMap<>();
        int size = 0;
        for (Map.Entry<PartitionKey, List<SourceRecord>> e : records.entrySet()) {
            List<SourceRecord> list = e.getValue();
            Long position = positions.get(e.getKey());
            int from = position == null ? 0 : firstAtOrAbove(list, position);
            if (from < list.size()) {
                List<SourceRecord> rest = from == 0 ? list : list.subList(from, list.size());
                kept.put(e.getKey(), rest);
                size += rest.size();
            }
        }
        return new Pending(Collections.unmodifiableMap(kept), size);
    }

    boolean isEmpty() {
        return size == 0;
    }

    /**
     * The offset range per partition to commit. It starts at the table's position when there is one, not at the
     * first record: offsets have gaps (transaction markers, compaction) and the commit must continue exactly where the
     * table stands.
     */
    Map<PartitionKey, OffsetRange> ranges(Map<PartitionKey, Long> positions, Map<PartitionKey, Long> decodeFailures) {
        Map<PartitionKey, OffsetRange> ranges = new LinkedHashMap<>();
        for (Map.Entry<PartitionKey, List<SourceRecord>> e : partitions.entrySet()) {
            List<SourceRecord> list = e.getValue();
            Long position = positions.get(e.getKey());
            // A producer's sequences have no gaps to bridge: its range starts at its first batch, so a batch that
            // does not continue the table's sequence conflicts instead of silently skipping the missing ones.
            long from = position == null || e.getKey().isProducer() ? list.get(0).offset() : position;
            ranges.put(e.getKey(), new OffsetRange(from, list.get(list.size() - 1).offset() + 1,
                    decodeFailures.getOrDefault(e.getKey(), 0L)));
        }
        return ranges;
    }

    /**
     * The records cut into {@code parts} runs of nearly equal size, in order: each part is a list of runs of one
     * partition (views, nothing copied). Every part but the last holds exactly the ceiling of size / parts records; the
     * last may hold fewer, and fewer than {@code parts} parts come back when there are too few records.
     */
    List<List<List<SourceRecord>>> split(int parts) {
        List<List<List<SourceRecord>>> result = new ArrayList<>(parts);
        List<List<SourceRecord>> current = new ArrayList<>();
        int filled = 0;
        int target = (size + parts - 1) / parts;
        for (List<SourceRecord> list : partitions.values()) {
            int from = 0;
            while (from < list.size()) {
                boolean last = result.size() == parts - 1;
                int take = last ? list.size() - from : Math.min(list.size() - from, target - filled);
                current.add(from == 0 && take == list.size() ? list : list.subList(from, from + take));
                from += take;
                filled += take;
                if (!last && filled == target) {
                    result.add(current);
                    current = new ArrayList<>();
                    filled = 0;
                }
            }
        }
        if (!current.isEmpty()) {
            result.add(current);
        }
        return result;
    }

    private static int firstAtOrAbove(List<SourceRecord> list, long offset) {
        int lo = 0;
        int hi = list.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (list.get(mid).offset() < offset) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The records' size as Kafka delivered them. */
    long bytes() {
        long bytes = 0;
        for (List<SourceRecord> list : partitions.values()) {
            for (SourceRecord r : list) {
                bytes += r.byteSize();
            }
        }
        return bytes;
    }
}
