package io.tributary.delta;

import java.util.Optional;

/**
 * The offsets a micro-batch covers for one partition: from {@code from} (inclusive) to {@code next} (exclusive), and how
 * many of its keys and values could not be decoded (committed with the position, so the count survives restarts and is
 * the same for every process that reads the table).
 *
 * <p>{@code topicId} is the Kafka topic id the offsets belong to (null: not known, the position keeps what it had).
 * {@code refill} keeps the partition marked as one whose records must be read from Kafka directly (see
 * {@link PartitionPosition#refill()}). {@code replaces} makes the range a reset: the topic was deleted and created
 * again, so the table's position, which belongs to the old topic, is replaced rather than continued.
 * {@code maxTimestampMs} is the newest Kafka record timestamp among the range's records (-1: none known); the
 * position keeps the newest over all commits, for the stream's {@code valid_through}. {@code lost} (null: none) names
 * the offsets at the range's start that Kafka no longer had when they were read.
 */
public record OffsetRange(long from, long next, long decodeFailures, String topicId, boolean refill,
        PartitionPosition.Recreation replaces, long maxTimestampMs, Lost lost) {

    public OffsetRange(long from, long next, long decodeFailures, String topicId, boolean refill,
            PartitionPosition.Recreation replaces) {
        this(from, next, decodeFailures, topicId, refill, replaces, -1, null);
    }

    /** Offsets {@code from} to {@code to} (exclusive) were gone from the topic when the batch was read, at {@code at}. */
    public record Lost(long from, long to, java.time.Instant at) {}

    public OffsetRange(long from, long next) {
        this(from, next, 0);
    }

    public OffsetRange(long from, long next, long decodeFailures) {
        this(from, next, decodeFailures, null, false, null);
    }

    /**
     * A reset to {@code next} of a partition whose topic was recreated; it commits only while the table's position is
     * still the one {@code recreation} names ({@code previousTopicId} and {@code previousNext}).
     */
    public static OffsetRange reset(long next, PartitionPosition.Recreation recreation) {
        return new OffsetRange(next, next, 0, recreation.topicId(), true, recreation);
    }

    public OffsetRange withTopic(String topicId, boolean refill) {
        return new OffsetRange(from, next, decodeFailures, topicId, refill, replaces, maxTimestampMs, lost);
    }

    /** The range with the newest record timestamp of its records (Kafka's, milliseconds; negative: none). */
    public OffsetRange withMaxTimestamp(long maxTimestampMs) {
        return new OffsetRange(from, next, decodeFailures, topicId, refill, replaces, maxTimestampMs, lost);
    }

    public OffsetRange withLost(Lost lost) {
        return new OffsetRange(from, next, decodeFailures, topicId, refill, replaces, maxTimestampMs, lost);
    }

    /**
     * The partition's last loss once this range lands on {@code prior} (null: a partition new to the table): lost
     * offsets add up while the topic stays the same; a reset for a recreated topic starts the new one without them.
     */
    public Optional<PartitionPosition.Loss> lossAfter(PartitionPosition prior) {
        Optional<PartitionPosition.Loss> kept = replaces != null || prior == null ? Optional.empty() : prior.lost();
        if (lost == null) {
            return kept;
        }
        long before = kept.map(PartitionPosition.Loss::total).orElse(0L);
        return Optional.of(new PartitionPosition.Loss(lost.from(), lost.to(), before + (lost.to() - lost.from()),
                lost.at()));
    }

    public Optional<PartitionPosition.Recreation> reset() {
        return Optional.ofNullable(replaces);
    }
}
