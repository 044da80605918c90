package io.tributary.delta;

/** A Kafka topic-partition as the Delta log records its position. */
public record PartitionKey(String topic, int partition) implements Comparable<PartitionKey> {
    @Override
    public int compareTo(PartitionKey o) {
        int c = topic.compareTo(o.topic);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
