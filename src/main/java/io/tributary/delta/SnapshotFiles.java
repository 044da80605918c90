package io.tributary.delta;

import java.util.List;

/**
 * A snapshot's live data files, for a reader that takes a first copy of a large table in parts ({@link
 * Tables#snapshotFiles}, {@link Tables#changesOf}). {@code deletionVectors}: some file has rows deleted from it, which
 * only Kernel's scan of the whole snapshot reads correctly.
 */
public record SnapshotFiles(long version, boolean deletionVectors, List<File> files) {
    public SnapshotFiles {
        files = List.copyOf(files);
    }

    /**
     * One file: its path as the log records it, its size and modification time, the rows it holds ({@code -1}
     * unknown) and the least value of the column asked for as its statistics give it (the statistics' JSON text, a
     * timestamp as {@code 2026-01-01T00:00:00.000Z}; null when the statistics do not give it).
     */
    public record File(String logPath, long size, long modificationTime, long numRecords, String min) {}
}
