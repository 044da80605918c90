package io.tributary.online;

import java.util.List;

/**
 * A column of a synced table: the source field at {@code path} (structs opened up), named by the path joined with
 * {@code _}, of PostgreSQL type {@code pgType} (see {@link OnlineColumns#pgType}).
 */
public record OnlineColumn(String name, List<String> path, String deltaType, String pgType) {
    public OnlineColumn {
        path = List.copyOf(path);
    }

    /** Arrays, maps and variants are stored as {@code jsonb}. */
    public boolean json() {
        return "jsonb".equals(pgType);
    }
}
