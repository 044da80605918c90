package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.PartitionPosition;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * After a recreated topic's reset, where the runtime cannot read a partition again itself (a Lambda event source
 * mapping): the new topic's records up to the batch's are read through a {@link RecordReader} and replace the
 * batch's, for {@link StreamIngester}.
 */
final class Refills {
    private Refills() {}

    /** Writes and commits one chunk, keeping {@code refilling} marked; empty when the table had it all. */
    @FunctionalInterface
    interface ChunkWriter {
        Optional<CommitResult> write(MicroBatch batch, Map<String, String> ids, Set<PartitionKey> refilling);
    }

    /** The batch to write now, the partitions still marked after it, and what the chunks committed on the way. */
    record Refill(MicroBatch batch, Set<PartitionKey> stillRefilling, CommitResult committed) {}

    /**
     * For each partition of the batch that is still being refilled after a reset, the records up to the batch's last
     * one are read from Kafka and replace the batch's: the delivery may have skipped the new topic's first records, or
     * may even hold the old topic's last ones. Full chunks are committed on the way; a partition stays marked until
     * what was read reaches the batch's end.
     */
    static Refill refill(MicroBatch batch, Map<String, String> ids,
            Supplier<Map<PartitionKey, PartitionPosition>> details, RecordReader reader, int chunkSize,
            ChunkWriter writer) {
        Map<PartitionKey, List<SourceRecord>> parts = new LinkedHashMap<>(batch.partitions());
        Set<PartitionKey> still = new HashSet<>();
        CommitResult committed = null;
        boolean changed = false;
        for (Map.Entry<PartitionKey, List<SourceRecord>> e : batch.partitions().entrySet()) {
            PartitionPosition at = details.get().get(e.getKey());
            List<SourceRecord> list = e.getValue();
            long until = list.get(list.size() - 1).offset() + 1;
            if (at == null || !at.refill() || until <= at.next()) {
                continue;
            }
            changed = true;
            if (!ids.containsKey(e.getKey().topic())) {
                // The topic is gone again: nothing can be read for it now; the mark stays for a later delivery.
                parts.remove(e.getKey());
                continue;
            }
            long from = at.next();
            List<SourceRecord> read = reader.read(e.getKey(), from, until, chunkSize);
            while (read.size() >= chunkSize && last(read) + 1 < until) {
                MicroBatch.Builder chunk = MicroBatch.builder();
                read.forEach(chunk::add);
                Optional<CommitResult> c = writer.write(chunk.build(), ids, Set.of(e.getKey()));
                if (c.isPresent()) {
                    committed = committed == null ? c.get() : CommitResults.combine(committed, c.get());
                }
                read = reader.read(e.getKey(), last(read) + 1, until, chunkSize);
            }
            if (read.isEmpty() || last(read) + 1 < until) {
                still.add(e.getKey());
            }
            if (read.isEmpty()) {
                parts.remove(e.getKey());
            } else {
                parts.put(e.getKey(), read);
            }
        }
        if (!changed) {
            return new Refill(batch, Set.of(), null);
        }
        MicroBatch.Builder rebuilt = MicroBatch.builder();
        parts.values().forEach(list -> list.forEach(rebuilt::add));
        return new Refill(rebuilt.build(), Set.copyOf(still), committed);
    }

    private static long last(List<SourceRecord> records) {
        return records.get(records.size() - 1).offset();
    }

    static MicroBatch without(MicroBatch batch, Set<PartitionKey> dropped) {
        MicroBatch.Builder rest = MicroBatch.builder();
        batch.partitions().forEach((k, list) -> {
            if (!dropped.contains(k)) {
                list.forEach(rest::add);
            }
        });
        return rest.build();
    }
}
