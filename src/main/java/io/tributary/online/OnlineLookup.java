package io.tributary.online;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Key lookups on a synced table: one statement per call whatever the number of keys, the keys sent as text arrays and
 * cast to the key columns' types, so PostgreSQL walks the primary key index once per key. Rows come back in key
 * order, a key without a row as null.
 */
public final class OnlineLookup {
    private final OnlineStore store;

    public OnlineLookup(OnlineStore store) {
        this.store = store;
    }

    /**
     * {@code keys}: per key, the key columns' values as text in the order of {@code keyColumns} (a null value finds
     * nothing: NULL keys are never stored).
     */
    public List<Map<String, Object>> lookup(String table, List<SyncState.StoredColumn> keyColumns,
            List<String[]> keys) {
        Map<String, Object>[] out = newRows(keys.size());
        try (Connection c = store.connection()) {
            c.setAutoCommit(true);
            if (keys.size() == 1) {
                // The common case gets the plain statement a hand-written primary key SELECT would be.
                String where = keyColumns.stream().map(k -> OnlineStore.quote(k.name()) + " = CAST(? AS "
                        + k.pgType() + ")").collect(Collectors.joining(" AND "));
                try (PreparedStatement s = c.prepareStatement("SELECT * FROM " + store.qualified(table) + " WHERE "
                        + where)) {
                    String[] key = keys.get(0);
                    for (int i = 0; i < key.length; i++) {
                        s.setString(i + 1, key[i]);
                    }
                    try (ResultSet rs = s.executeQuery()) {
                        if (rs.next()) {
                            out[0] = row(rs);
                        }
                    }
                }
                return Arrays.asList(out);
            }
            StringBuilder sql = new StringBuilder("SELECT k.i, t.* FROM unnest(");
            for (int i = 0; i < keyColumns.size(); i++) {
                sql.append(i == 0 ? "" : ", ").append("CAST(? AS text[])");
            }
            sql.append(") WITH ORDINALITY AS k(");
            for (int i = 0; i < keyColumns.size(); i++) {
                sql.append("k").append(i).append(", ");
            }
            sql.append("i) JOIN ").append(store.qualified(table)).append(" AS t ON ");
            for (int i = 0; i < keyColumns.size(); i++) {
                SyncState.StoredColumn k = keyColumns.get(i);
                sql.append(i == 0 ? "" : " AND ").append("t.").append(OnlineStore.quote(k.name()))
                        .append(" = CAST(k.k").append(i).append(" AS ").append(k.pgType()).append(")");
            }
            try (PreparedStatement s = c.prepareStatement(sql.toString())) {
                for (int col = 0; col < keyColumns.size(); col++) {
                    String[] values = new String[keys.size()];
                    for (int k = 0; k < keys.size(); k++) {
                        values[k] = keys.get(k)[col];
                    }
                    s.setArray(col + 1, c.createArrayOf("text", values));
                }
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        int i = (int) rs.getLong(1) - 1;
                        Map<String, Object> row = row(rs);
                        row.remove("i");
                        out[i] = row;
                    }
                }
            }
            return Arrays.asList(out);
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) {
                throw new SyncException("the synced table has no PostgreSQL table: it has not "
                        + "synced yet, or its table was dropped outside Tributary and the next sync rebuilds it");
            }
            throw new IllegalStateException("looking up keys in " + table + " failed: " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object>[] newRows(int n) {
        return new Map[n];
    }

    /** A row as column name to value: timestamps as OffsetDateTime, jsonb as {@link OnlineStore.Json}. */
    static Map<String, Object> row(ResultSet rs) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            String name = meta.getColumnName(i);
            String type = meta.getColumnTypeName(i);
            Object v;
            if ("timestamptz".equals(type)) {
                v = rs.getObject(i, OffsetDateTime.class);
            } else if ("timestamp".equals(type)) {
                v = rs.getObject(i, java.time.LocalDateTime.class);
            } else if ("date".equals(type)) {
                v = rs.getObject(i, java.time.LocalDate.class);
            } else if ("jsonb".equals(type)) {
                String text = rs.getString(i);
                v = text == null ? null : new OnlineStore.Json(text);
            } else if (meta.getColumnType(i) == Types.BINARY) {
                v = rs.getBytes(i);
            } else {
                v = rs.getObject(i);
            }
            row.put(name, v);
        }
        return row;
    }

}
