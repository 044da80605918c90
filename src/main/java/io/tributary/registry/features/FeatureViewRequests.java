package io.tributary.registry.features;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.tributary.features.FeatureViewDefinition;
import io.tributary.registry.request.ApiRequest;
import java.util.List;
import java.util.Map;

/** The request bodies of feature views (SPEC "Feature views"). */
public final class FeatureViewRequests {
    private FeatureViewRequests() {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Create(String name, Source source, List<String> entityColumns, String timestampColumn,
            String allowedLateness, List<FeatureRequest> features) implements ApiRequest {
        FeatureViewDefinition definition() {
            return new FeatureViewDefinition(entityColumns, timestampColumn, allowedLateness,
                    features == null ? null : features.stream().map(f -> f == null ? null
                            : new FeatureViewDefinition.FeatureDefinition(f.name(), f.function(), f.column(),
                                    f.window() == null ? null : new FeatureViewDefinition.WindowDefinition(
                                            span(f.window().tumbling()), span(f.window().sliding()),
                                            span(f.window().rolling())))).toList());
        }

        private static FeatureViewDefinition.Span span(Span s) {
            return s == null ? null : new FeatureViewDefinition.Span(s.duration(), s.slide(), s.precision());
        }
    }

    /** Exactly one of the two. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Source(String streamName, String tableName) {}

    public record FeatureRequest(String name, String function, String column, WindowRequest window) {}

    public record WindowRequest(Span tumbling, Span sliding, Span rolling) {}

    public record Span(String duration, String slide, String precision) {}

    /** Keys by the entity column names (value.user_id → value_user_id), each with an optional {@code as_of}. */
    public record Lookup(List<Map<String, Object>> keys) implements ApiRequest {}

    /**
     * The batch point-in-time form: the spine (a table of entity columns and a time, by name), the new table the
     * features as of each row go to, and the spine's time column (default {@code as_of}).
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record PointInTime(String spineTable, String outputTable, String timestampColumn) implements ApiRequest {}
}
