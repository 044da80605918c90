package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import java.util.List;

/**
 * Reads a partition's records straight from Kafka, for a runtime that cannot move its delivery back: after a topic
 * was recreated, a Lambda event source mapping may go on delivering from the old topic's offsets, and the new topic's
 * records before them would never arrive. The server's consumer seeks instead and needs none.
 */
public interface RecordReader {

    /**
     * The committed records of {@code partition} with offsets in {@code [from, until)}, in offset order, at most
     * {@code max}; fewer (or none) when the partition ends earlier.
     */
    List<SourceRecord> read(PartitionKey partition, long from, long until, int max);
}
