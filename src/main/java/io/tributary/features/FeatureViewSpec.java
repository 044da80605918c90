package io.tributary.features;

import java.util.List;

/**
 * A compiled feature view: what materialization and lookups need. {@code entityNames} are the entity paths joined by
 * {@code _} (the names in the offline table, the online store and lookups); {@code entityTypes} their SQL types
 * (string or an integer type); {@code timestampIsLong}: the timestamp column holds epoch milliseconds rather than a
 * timestamp. {@code tables}: the online table name prefix (lower-case identifier) of the view.
 */
public record FeatureViewSpec(String id, String name, String sourceLocation, List<List<String>> entityPaths,
        List<String> entityNames, List<String> entityTypes, List<String> timestampPath, boolean timestampIsLong,
        long latenessMs, List<Feature> features, String offlineLocation, String tables) {
    public FeatureViewSpec {
        entityPaths = entityPaths.stream().map(List::copyOf).toList();
        entityNames = List.copyOf(entityNames);
        entityTypes = List.copyOf(entityTypes);
        timestampPath = List.copyOf(timestampPath);
        features = List.copyOf(features);
    }

    /** The longest window: how far behind the watermark tiles are still needed. */
    public long longestWindowMs() {
        return features.stream().mapToLong(f -> f.window().durationMs()).max().orElse(0);
    }
}
