package io.tributary.backfill;

import io.tributary.delta.Column;
import io.tributary.delta.NoSuchTableException;
import io.tributary.delta.Tables;
import io.tributary.schema.StreamSchema;
import java.util.List;
import java.util.Optional;

/**
 * SPEC 5: a backfill source is a Delta table with a {@code stream_record_timestamp} TIMESTAMP column, named exactly
 * so (the rule stream creation applies in the registry, so a stream accepted there is never refused here).
 */
final class SourceCheck {
    private SourceCheck() {}

    /** @return what is wrong with the source and how to fix it, or empty if it can be merged */
    static Optional<String> problem(Tables tables, String location) {
        List<Column> columns;
        try {
            columns = tables.columns(location);
        } catch (NoSuchTableException e) {
            return Optional.of("no Delta table at " + location + "; create the backfill source table first or register"
                    + " its storage location");
        }
        for (Column c : columns) {
            if (c.name().equals(StreamSchema.STREAM_RECORD_TIMESTAMP)) {
                return c.type().equals("timestamp") ? Optional.empty()
                        : Optional.of("column " + c.name() + " of the backfill source is " + c.type()
                                + "; it must be timestamp (UTC) — cast it, e.g. to_utc_timestamp for timestamp_ntz");
            }
        }
        return Optional.of("the backfill source has no " + StreamSchema.STREAM_RECORD_TIMESTAMP
                + " column; add a timestamp column of that name holding each record's time");
    }
}
