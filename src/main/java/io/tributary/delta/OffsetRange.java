package io.tributary.delta;

/**
 * The offsets a micro-batch covers for one partition: from {@code from} (inclusive) to {@code next} (exclusive), and how
 * many of its keys and values could not be decoded (committed with the position, so the count survives restarts and is
 * the same for every process that reads the table).
 */
public record OffsetRange(long from, long next, long decodeFailures) {
    public OffsetRange(long from, long next) {
        this(from, next, 0);
    }
}
