package io.tributary.delta;

import java.util.List;

/**
 * A column of a table's schema with its structs opened up: {@code path} is the field names from the top-level column
 * down to a field that is not a struct ({@code [value, user_id]}), {@code type} that field's SQL type as
 * {@link Column} writes it ({@code bigint}, {@code decimal(10,2)}, {@code array<string>}, ...). {@code nullable} is
 * true when the field or any struct above it may be null.
 */
public record LeafColumn(List<String> path, String type, boolean nullable) {
    public LeafColumn {
        path = List.copyOf(path);
    }
}
