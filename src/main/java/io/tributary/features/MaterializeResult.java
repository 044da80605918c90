package io.tributary.features;

/** One round: the source versions it went from and to, records read and dropped late, windows made final. */
public record MaterializeResult(long fromVersion, long toVersion, long records, long lateDropped, long finalWindows,
        long watermark) {}
