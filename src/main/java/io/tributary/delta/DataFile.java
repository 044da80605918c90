package io.tributary.delta;

/** A Parquet data file written into a table's directory, not yet committed. {@code path} is relative to the table root. */
public record DataFile(String path, long sizeBytes, long numRecords, String statsJson) {}
