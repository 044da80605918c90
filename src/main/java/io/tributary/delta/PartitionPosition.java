package io.tributary.delta;

import java.time.Instant;
import java.util.Optional;

/**
 * A partition's committed position as the table's domain metadata records it.
 *
 * @param next the next offset to ingest
 * @param topicId the Kafka topic id the position belongs to; empty in tables written before ids were recorded, until
 *        the first commit of that topic adopts the current id
 * @param refill whether the position was reset for a recreated topic and the records from it on still have to be read
 *        from Kafka directly: a Lambda event source mapping may go on delivering from the old topic's offsets
 * @param recreated the last time this partition's topic was found deleted and created again, if ever
 * @param maxTimestamp the newest Kafka record timestamp committed on this partition (of its current topic), if any:
 *        the partition's part of the stream's {@code valid_through}
 * @param lastCommitAt when a commit last added records of this partition, if ever (the writer's clock)
 * @param lost the last time offsets of this partition were gone from Kafka before the stream read them, if ever
 */
public record PartitionPosition(long next, Optional<String> topicId, boolean refill, Optional<Recreation> recreated,
        long decodeFailures, Optional<Instant> maxTimestamp, Optional<Instant> lastCommitAt, Optional<Loss> lost) {

    public PartitionPosition(long next, Optional<String> topicId, boolean refill, Optional<Recreation> recreated,
            long decodeFailures) {
        this(next, topicId, refill, recreated, decodeFailures, Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** The topic was {@code previousTopicId} (empty: no id recorded) and is {@code topicId} since {@code at}. */
    public record Recreation(Optional<String> previousTopicId, long previousNext, String topicId, Instant at) {}

    /**
     * Offsets {@code from} (inclusive) to {@code to} (exclusive) were deleted from the topic (retention, DeleteRecords)
     * before the stream read them, found at {@code at}; {@code total} counts every offset of the partition lost so
     * far. Offsets, not records: a lost range may have held transaction markers or compacted-away records.
     */
    public record Loss(long from, long to, long total, Instant at) {}
}
