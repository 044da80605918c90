package io.tributary.ingest;

import io.tributary.delta.TableWriter;
import io.tributary.schema.StreamSchema;
import java.util.ArrayList;
import java.util.List;

/**
 * Picks the stream schema a pipeline writes its table with when it opens. The schema compiled now (a registry
 * subject's latest version) is used when the table's schema is it or narrower (the table gains its new nullable
 * columns at once); a table with columns it lacks is written with the newest earlier version that covers them.
 */
final class TableSchemas {
    private TableSchemas() {}

    static StreamSchema matching(TableWriter table, StreamSchema latest) {
        List<String> refusals = new ArrayList<>();
        try {
            table.evolveSchema(latest.rowSchema());
            return latest;
        } catch (IllegalArgumentException e) {
            refusals.add(e.getMessage());
        }
        for (StreamSchema earlier : latest.earlierVersions()) {
            try {
                table.evolveSchema(earlier.rowSchema());
                return earlier;
            } catch (IllegalArgumentException e) {
                refusals.add(e.getMessage());
            }
        }
        throw new IllegalStateException("no version of the stream's schema can write the table at "
                + table.location() + ": " + refusals.get(0));
    }
}
