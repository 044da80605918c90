package io.tributary.runtime.lambda;

/**
 * One Kafka record as the ingest core takes it. A local stand-in for {@code io.tributary.ingest.SourceRecord}, which
 * the lead adds with exactly these components; once it exists this file goes and the imports switch to it.
 * {@code key} and {@code value} are null when the record has none (a tombstone has a null value).
 */
public record SourceRecord(String topic, int partition, long offset, long timestampMs, byte[] key, byte[] value) {}
