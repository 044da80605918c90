package io.tributary.features;

import java.util.List;

/**
 * A feature view as a request writes it, before any check: durations as text, columns as dotted paths. A window is
 * given as exactly one of its kinds.
 */
public record FeatureViewDefinition(List<String> entityColumns, String timestampColumn, String allowedLateness,
        List<FeatureDefinition> features) {

    public record FeatureDefinition(String name, String function, String column, WindowDefinition window) {}

    public record WindowDefinition(Span tumbling, Span sliding, Span rolling) {}

    /** {@code duration}; {@code slide} for sliding windows; {@code precision} for rolling ones (optional). */
    public record Span(String duration, String slide, String precision) {}
}
