package io.tributary.features;

import java.util.List;

/**
 * One feature of a view: {@code column} is the source path (null for a count of rows); {@code numeric} says whether
 * the column holds numbers (first and last then answer doubles, else strings).
 */
public record Feature(String name, FeatureFunction function, List<String> column, boolean numeric,
        FeatureWindow window) {
    public Feature {
        column = column == null ? null : List.copyOf(column);
    }

    /** The value type of the feature's column in the offline table and lookups: bigint, double or string. */
    public String outputType() {
        return switch (function) {
            case COUNT, APPROX_COUNT_DISTINCT -> "bigint";
            case FIRST, LAST -> numeric ? "double" : "string";
            default -> "double";
        };
    }
}
