package io.tributary.registry.online;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.tributary.registry.request.ApiRequest;
import java.util.List;
import java.util.Map;

/** The request bodies of synced tables (SPEC "Synced tables"). */
public final class SyncedTableRequests {
    private SyncedTableRequests() {}

    public record Create(String name, Spec spec) implements ApiRequest {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Spec(String sourceTableFullName, List<String> primaryKeyColumns, String timeseriesKey,
            String schedulingPolicy) {}

    /** Keys by the synced table's (flattened) key column names; a value may be null (it finds no row). */
    public record Lookup(List<Map<String, Object>> keys) implements ApiRequest {}
}
