package io.tributary.delta;

/**
 * A position the Delta log records: a Kafka topic-partition, or a direct-ingest producer ({@link #producer}), whose
 * "offset" is its batch sequence. Both are committed, checked and retried the same way, so exactly once is one rule.
 */
public record PartitionKey(String topic, int partition) implements Comparable<PartitionKey> {
    /** The partition number that marks a producer: Kafka partitions are never negative. */
    public static final int PRODUCER = -1;

    /** The position of a direct-ingest producer: its next expected sequence, in a domain of its own. */
    public static PartitionKey producer(String producerId) {
        return new PartitionKey(producerId, PRODUCER);
    }

    public boolean isProducer() {
        return partition == PRODUCER;
    }

    @Override
    public int compareTo(PartitionKey o) {
        int c = topic.compareTo(o.topic);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }

    @Override
    public String toString() {
        return isProducer() ? "producer " + topic : topic + "-" + partition;
    }
}
