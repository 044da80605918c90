package io.tributary.delta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.StructField;
import io.tributary.delta.kernel.ScanFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lists a snapshot's live files with their statistics. Statistics are keyed by physical column names when column
 * mapping is on, so they are translated back to the logical names callers know.
 */
final class DataFileSummaries {
    private static final String PHYSICAL_NAME = "delta.columnMapping.physicalName";
    private static final ObjectMapper JSON = new ObjectMapper();

    private DataFileSummaries() {}

    static List<DataFileSummary> of(Engine engine, Snapshot snapshot) {
        Map<String, String> logicalByPhysical = new HashMap<>();
        for (StructField f : snapshot.getSchema().fields()) {
            String physical = f.getMetadata().contains(PHYSICAL_NAME) ? f.getMetadata().getString(PHYSICAL_NAME) : f.getName();
            logicalByPhysical.put(physical, f.getName());
        }
        List<DataFileSummary> out = new ArrayList<>();
        LiveFiles.forEach(engine, snapshot, true, scanFile -> out.add(summary(scanFile, logicalByPhysical)));
        return out;
    }

    private static DataFileSummary summary(Row scanFile, Map<String, String> logicalByPhysical) {
        String path = ScanFiles.fileStatus(scanFile).getPath();
        boolean deletions = ScanFiles.hasDeletionVector(scanFile);
        String json = ScanFiles.statsJson(ScanFiles.addFile(scanFile));
        if (json == null) {
            return new DataFileSummary(path, -1, false, Map.of(), Map.of(), Map.of());
        }
        JsonNode stats;
        try {
            stats = JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable statistics of " + path, e);
        }
        long numRecords = stats.path("numRecords").asLong(-1);
        boolean tight = !deletions || stats.path("tightBounds").asBoolean(false);
        Map<String, Long> nulls = new HashMap<>();
        stats.path("nullCount").fields().forEachRemaining(e -> {
            String logical = logicalByPhysical.get(e.getKey());
            if (logical != null && e.getValue().isNumber()) {
                nulls.put(logical, e.getValue().asLong());
            }
        });
        return new DataFileSummary(path, numRecords, tight, values(stats.path("minValues"), logicalByPhysical),
                values(stats.path("maxValues"), logicalByPhysical), nulls);
    }

    /** Top-level scalar bounds only; nested structs' bounds are not needed by any caller. */
    private static Map<String, String> values(JsonNode node, Map<String, String> logicalByPhysical) {
        Map<String, String> out = new HashMap<>();
        node.fields().forEachRemaining(e -> {
            String logical = logicalByPhysical.get(e.getKey());
            if (logical != null && e.getValue().isValueNode() && !e.getValue().isNull()) {
                out.put(logical, e.getValue().asText());
            }
        });
        return out;
    }
}
