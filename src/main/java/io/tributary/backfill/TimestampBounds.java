package io.tributary.backfill;

import io.tributary.delta.DataFileSummary;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import io.tributary.schema.StreamSchema;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The two timestamps of the overlap check. File statistics answer without reading data when every file has usable
 * ones; otherwise the column is scanned. Writers record timestamp bounds in milliseconds (rounded down), so a
 * statistics answer can be up to 1 ms below the exact value.
 */
final class TimestampBounds {
    private static final String TS = StreamSchema.STREAM_RECORD_TIMESTAMP;
    private static final String STREAM = "stream";

    private TimestampBounds() {}

    /** The latest stream_record_timestamp in the backfill source, or empty if it has no timestamps. */
    static Optional<Instant> sourceMax(Tables tables, String location) {
        List<DataFileSummary> files = tables.dataFiles(location);
        Instant max = null;
        for (DataFileSummary f : files) {
            if (!f.tightBounds() || f.numRecords() < 0) {
                return scan(tables, location, false, true);
            }
            if (allNull(f, TS)) {
                continue;
            }
            Optional<Instant> fileMax = parse(f.maxValues().get(TS));
            if (fileMax.isEmpty()) {
                return scan(tables, location, false, true);
            }
            max = max == null || fileMax.get().isAfter(max) ? fileMax.get() : max;
        }
        return Optional.ofNullable(max);
    }

    /** The earliest stream_record_timestamp of rows with record_source = 'stream', or empty if there are none. */
    static Optional<Instant> ingestionMin(Tables tables, String location) {
        Instant min = null;
        for (DataFileSummary f : tables.dataFiles(location)) {
            if (!f.tightBounds() || f.numRecords() < 0) {
                return scan(tables, location, true, false);
            }
            String lo = f.minValues().get(StreamSchema.RECORD_SOURCE);
            String hi = f.maxValues().get(StreamSchema.RECORD_SOURCE);
            if (allNull(f, StreamSchema.RECORD_SOURCE) || lo != null && hi != null
                    && (lo.compareTo(STREAM) > 0 || hi.compareTo(STREAM) < 0)) {
                continue; // no stream rows in this file
            }
            boolean onlyStream = STREAM.equals(lo) && STREAM.equals(hi) && f.nullCounts().getOrDefault(StreamSchema.RECORD_SOURCE, -1L) == 0;
            if (!onlyStream) {
                return scan(tables, location, true, false);
            }
            if (allNull(f, TS)) {
                continue;
            }
            Optional<Instant> fileMin = parse(f.minValues().get(TS));
            if (fileMin.isEmpty()) {
                return scan(tables, location, true, false);
            }
            min = min == null || fileMin.get().isBefore(min) ? fileMin.get() : min;
        }
        return Optional.ofNullable(min);
    }

    private static boolean allNull(DataFileSummary f, String column) {
        Long nulls = f.nullCounts().get(column);
        return nulls != null && nulls == f.numRecords();
    }

    private static Optional<Instant> scan(Tables tables, String location, boolean streamRowsOnly, boolean max) {
        Instant best = null;
        try (TableRows rows = tables.read(location)) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                if (streamRowsOnly && !STREAM.equals(row.get(StreamSchema.RECORD_SOURCE))) {
                    continue;
                }
                if (row.get(TS) instanceof Instant t && (best == null || (max ? t.isAfter(best) : t.isBefore(best)))) {
                    best = t;
                }
            }
        }
        return Optional.ofNullable(best);
    }

    /** Spark writes {@code 2026-01-01T00:00:00.000Z}; other writers use an offset or none (UTC). */
    static Optional<Instant> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(OffsetDateTime.parse(text).toInstant());
        } catch (DateTimeParseException e) {
            try {
                return Optional.of(LocalDateTime.parse(text).toInstant(ZoneOffset.UTC));
            } catch (DateTimeParseException e2) {
                return Optional.empty();
            }
        }
    }
}
