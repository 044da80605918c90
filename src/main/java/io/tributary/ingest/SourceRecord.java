package io.tributary.ingest;

/**
 * One Kafka record as every runtime hands it to the core: the server's consumer and the Lambda's Kafka event alike.
 * The byte arrays are taken as they are, not copied: nothing downstream mutates them.
 */
public record SourceRecord(String topic, int partition, long offset, long timestampMs, byte[] key, byte[] value) {

    /** What the record weighs against {@code max-batch-bytes}: its payload. */
    public long byteSize() {
        return (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    }
}
