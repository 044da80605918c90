package io.tributary.registry.request;

import io.tributary.schema.StreamSchema;
import java.util.List;

/** Checks deduplication column paths against a stream's row schema (SPEC 2.3, SPEC 5). */
public final class IngestionTableSchema {
    private IngestionTableSchema() {}

    /** @throws ApiException naming {@code ingestion_config.deduplication_columns[i]} for a path naming no column */
    public static void checkColumnPaths(StreamSchema schema, List<String> paths) {
        for (int i = 0; i < paths.size(); i++) {
            String index = "ingestion_config.deduplication_columns[" + i + "]";
            schema.checkColumnPath(paths.get(i)).ifPresent(problem -> {
                throw ApiException.invalid(index, problem);
            });
        }
    }
}
