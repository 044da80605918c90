package io.tributary.backfill;

import java.time.Duration;

/**
 * SPEC 6: {@code min-overlap} (default 1 h) and {@code max-wait} (default 48 h). {@code keyMemoryBytes} bounds the
 * heap the dedup key sets may take; beyond it the merge runs in several passes over hash partitions of the keys.
 * {@code rowsPerFile} bounds the rows of one written data file: the file is built in memory (its row group, then
 * the growing output buffer and its copy), so 100k rows of ~100 B keep that to tens of MB.
 */
public record BackfillSettings(Duration minOverlap, Duration maxWait, long keyMemoryBytes, int rowsPerFile) {
    public static final Duration DEFAULT_MIN_OVERLAP = Duration.ofHours(1);
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofHours(48);

    public BackfillSettings {
        if (minOverlap.isNegative() || maxWait.isNegative()) {
            throw new IllegalArgumentException("min-overlap and max-wait must not be negative");
        }
        if (keyMemoryBytes < (1 << 20) || rowsPerFile < 1) {
            throw new IllegalArgumentException("key memory must be at least 1 MB and rows per file at least 1");
        }
    }

    /** A third of the heap for keys leaves room for the Parquet buffers of the file being written. */
    public static BackfillSettings of(Duration minOverlap, Duration maxWait) {
        return new BackfillSettings(minOverlap, maxWait, Math.max(1 << 20, Runtime.getRuntime().maxMemory() / 3), 100_000);
    }

    public static BackfillSettings defaults() {
        return of(DEFAULT_MIN_OVERLAP, DEFAULT_MAX_WAIT);
    }
}
