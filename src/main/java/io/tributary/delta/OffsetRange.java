package io.tributary.delta;

/** The offsets a micro-batch covers for one partition: from {@code from} (inclusive) to {@code next} (exclusive). */
public record OffsetRange(long from, long next) {}
