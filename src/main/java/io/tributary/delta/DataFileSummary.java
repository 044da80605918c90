package io.tributary.delta;

import java.util.Map;

/**
 * What a table's log says about one live data file, from the statistics its writer recorded. Keys are top-level
 * column names (logical names, whatever the column mapping), values the statistics' JSON text (strings without
 * quotes; timestamps as the writer rendered them, e.g. {@code 2026-01-01T00:00:00.000Z}). {@code tightBounds} is
 * false when rows were deleted after the statistics were written (deletion vectors), so min/max may belong to a row
 * that is gone.
 */
public record DataFileSummary(String path, long numRecords, boolean tightBounds, Map<String, String> minValues,
        Map<String, String> maxValues, Map<String, Long> nullCounts) {}
