package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The records of one stream that become one Delta commit, grouped by partition in offset order. */
public final class MicroBatch {

    private final Map<PartitionKey, List<SourceRecord>> partitions;
    private final int size;
    private final long byteSize;

    private MicroBatch(Map<PartitionKey, List<SourceRecord>> partitions, int size, long byteSize) {
        this.partitions = Collections.unmodifiableMap(partitions);
        this.size = size;
        this.byteSize = byteSize;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Each list is in ascending offset order. */
    public Map<PartitionKey, List<SourceRecord>> partitions() {
        return partitions;
    }

    public int size() {
        return size;
    }

    public long byteSize() {
        return byteSize;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Not thread-safe: one builder belongs to the thread that reads from Kafka. */
    public static final class Builder {
        private Map<PartitionKey, List<SourceRecord>> partitions = new LinkedHashMap<>();
        private PartitionKey lastKey;
        private List<SourceRecord> lastList;
        private int size;
        private long byteSize;

        private Builder() {}

        /**
         * Adds a record. A record at or below an offset already held for its partition means the reader went back
         * (a seek after a rebalance): what was held from that offset on is replaced, so a batch never holds an
         * offset twice.
         */
        public Builder add(SourceRecord record) {
            List<SourceRecord> list = listFor(record.topic(), record.partition());
            if (!list.isEmpty() && list.get(list.size() - 1).offset() >= record.offset()) {
                truncateFrom(list, record.offset());
            }
            list.add(record);
            size++;
            byteSize += record.byteSize();
            return this;
        }

        /**
         * Adds a run of records of one position without the seek-back rule of {@link #add}: a pushed batch's records
         * all carry the batch's sequence as their offset ({@code ingest.direct}), and runs are added in sequence order.
         */
        public Builder addRun(PartitionKey key, List<SourceRecord> records) {
            partitions.computeIfAbsent(key, k -> new ArrayList<>()).addAll(records);
            lastKey = null;
            lastList = null;
            size += records.size();
            for (SourceRecord r : records) {
                byteSize += r.byteSize();
            }
            return this;
        }

        /** Forgets the records of partitions this reader no longer owns; their new owner reads them again. */
        public void removePartitions(Collection<PartitionKey> keys) {
            for (PartitionKey key : keys) {
                List<SourceRecord> removed = partitions.remove(key);
                if (removed != null) {
                    size -= removed.size();
                    for (SourceRecord r : removed) {
                        byteSize -= r.byteSize();
                    }
                }
            }
            lastKey = null;
            lastList = null;
        }

        public int size() {
            return size;
        }

        public long byteSize() {
            return byteSize;
        }

        public boolean isEmpty() {
            return size == 0;
        }

        /** Hands the records over and starts an empty batch. */
        public MicroBatch build() {
            MicroBatch batch = new MicroBatch(partitions, size, byteSize);
            partitions = new LinkedHashMap<>();
            lastKey = null;
            lastList = null;
            size = 0;
            byteSize = 0;
            return batch;
        }

        private List<SourceRecord> listFor(String topic, int partition) {
            // Records come in runs of one partition; remembering the last list avoids a lookup per record.
            if (lastKey != null && lastKey.partition() == partition && lastKey.topic().equals(topic)) {
                return lastList;
            }
            lastKey = new PartitionKey(topic, partition);
            lastList = partitions.computeIfAbsent(lastKey, k -> new ArrayList<>());
            return lastList;
        }

        private void truncateFrom(List<SourceRecord> list, long offset) {
            int i = list.size();
            while (i > 0 && list.get(i - 1).offset() >= offset) {
                i--;
            }
            List<SourceRecord> tail = list.subList(i, list.size());
            size -= tail.size();
            for (SourceRecord r : tail) {
                byteSize -= r.byteSize();
            }
            tail.clear();
        }
    }
}
