package io.tributary.online;

import io.tributary.delta.ChangesUnavailableException;
import io.tributary.delta.TableChanges;
import io.tributary.delta.Tables;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * Brings one synced table up to date with its source: reads what the source's commits after the stored version added
 * ({@link Tables#changesSince}), keeps per primary key the row with the greatest timeseries key, and upserts them with
 * the new version into the state row, all in one PostgreSQL transaction. A crash anywhere before that commit leaves
 * the old version and the old rows, so the next sync reads the same commits again: exactly once. The upsert only
 * replaces a stored row when the incoming timeseries key is at least the stored one, so reading a row again (a merge's
 * rewritten files, a snapshot's rows) never moves a key back in time.
 *
 * <p>Syncs of one synced table are serialised by a lock on its state row ({@code FOR UPDATE}), taken first: two
 * servers, a trigger and the continuous sync each read the version under it, so none writes an older version over a
 * newer one.
 */
public final class TableSync {
    static final String BUILD_SUFFIX = "__snapshot";
    /** Distinct keys held before they are written; the transaction still covers the whole sync. */
    private static final int CHUNK_KEYS = 5_000;
    private static final int ROWS_PER_STATEMENT = 2_000;

    private static final Logger LOG = Logger.getLogger(TableSync.class);

    private final Tables tables;
    private final OnlineStore store;
    private final SyncHooks hooks;

    public TableSync(Tables tables, OnlineStore store) {
        this(tables, store, SyncHooks.NONE);
    }

    public TableSync(Tables tables, OnlineStore store, SyncHooks hooks) {
        this.tables = tables;
        this.store = store;
        this.hooks = hooks;
    }

    /**
     * Syncs once (the synced table's state row must exist: {@link OnlineStore#register}): incrementally for TRIGGERED and CONTINUOUS, a rebuild for SNAPSHOT.
     *
     * @throws SyncException when the source changed in a way the synced table cannot follow (nothing was written)
     */
    public SyncResult run(SyncSpec spec) {
        long started = System.nanoTime();
        try (Connection c = store.connection()) {
            c.setAutoCommit(false);
            try {
                try (Statement s = c.createStatement()) {
                    // Not waiting for the WAL flush is safe here, and it is much of a small sync's time on a busy
                    // disk: a PostgreSQL crash can lose only whole recent sync transactions, rows and version
                    // together, and the next sync reads those Delta commits again (exactly once still holds).
                    s.execute("SET LOCAL synchronous_commit = off");
                }
                SyncState state = store.state(c, spec.id(), true);
                if (state == null) {
                    // Deleted meanwhile (its state row goes with its table): a sync must not bring the table back.
                    throw new SyncException("synced table " + spec.name() + " was deleted");
                }
                SyncResult result;
                if (spec.policy() == SyncPolicy.SNAPSHOT) {
                    result = rebuild(c, spec, state, started, false);
                } else if (state.version() >= 0 && !store.exists(c, spec.table())) {
                    // Dropped outside Tributary (an operator, a restore of the database without it): the source
                    // holds every row, so the copy is rebuilt rather than every later sync failing on it.
                    LOG.warnf("synced table %s: its PostgreSQL table %s is gone (dropped outside Tributary); "
                            + "rebuilding it from the source's latest snapshot", spec.name(),
                            store.qualified(spec.table()));
                    result = rebuild(c, spec, state, started, true);
                } else {
                    try {
                        result = incremental(c, spec, state, started);
                    } catch (ChangesUnavailableException gone) {
                        // The sync fell behind the source's vacuum retention (a TRIGGERED table not synced for a
                        // week, a server down that long), or the source was written anew at its location: what
                        // the commits after the synced version added cannot be read, but the snapshot holds every
                        // row, so the copy is rebuilt from it as SNAPSHOT would. Rows written so far in this
                        // transaction go with the rebuild's swap.
                        LOG.warnf("synced table %s: %s; rebuilding it from the source's latest snapshot",
                                spec.name(), gone.getMessage());
                        result = rebuild(c, spec, state, started, true);
                    }
                }
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("syncing " + spec.name() + " into PostgreSQL failed: " + e.getMessage(),
                    e);
        }
    }

    private SyncResult incremental(Connection c, SyncSpec spec, SyncState state, long started) throws SQLException {
        try (TableChanges changes = tables.changesSince(spec.sourceLocation(), state.version())) {
            if (state.sourceTableId() != null && !state.sourceTableId().equals(changes.tableId())) {
                throw ChangesUnavailableException.replaced(spec.sourceLocation(), state.version(), "its table id "
                        + "changed from " + state.sourceTableId() + " to " + changes.tableId());
            }
            if (changes.version() == state.version()) {
                return new SyncResult(state.version(), state.version(), 0, 0, System.nanoTime() - started);
            }
            OnlineColumns columns = OnlineColumns.of(changes.columns());
            List<OnlineColumn> key = columns.key(spec.primaryKey());
            OnlineColumn ts = columns.timeseries(spec.timeseriesKey());
            if (state.version() < 0 || state.columns().isEmpty()) {
                create(c, spec.table(), columns, key);
            } else {
                evolve(c, spec, state, columns);
            }
            long[] counts = write(c, spec.table(), columns, key, ts, changes);
            hooks.beforeCommit(spec, state.version(), changes.version());
            saveState(c, spec, changes, columns, counts, false);
            return new SyncResult(state.version(), changes.version(), counts[0], counts[1],
                    System.nanoTime() - started);
        }
    }

    /**
     * Builds the whole table under another name, then swaps it in: readers see the old rows or the new, never both.
     *
     * @param additiveOnly the rebuild stands for incremental syncs that could not be read (not a SNAPSHOT's), so it
     *     follows their rule: the columns may only change as {@link #evolve} allows, or applications reading the table
     *     would find a column retyped under them
     */
    private SyncResult rebuild(Connection c, SyncSpec spec, SyncState state, long started, boolean additiveOnly)
            throws SQLException {
        try (TableChanges changes = tables.changesSince(spec.sourceLocation(), -1)) {
            OnlineColumns columns = OnlineColumns.of(changes.columns());
            if (additiveOnly && !state.columns().isEmpty()) {
                evolution(spec, state, columns);
            }
            List<OnlineColumn> key = columns.key(spec.primaryKey());
            OnlineColumn ts = columns.timeseries(spec.timeseriesKey());
            String build = spec.table() + BUILD_SUFFIX;
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + store.qualified(build));
            }
            create(c, build, columns, key);
            long[] counts = write(c, build, columns, key, ts, changes);
            hooks.beforeCommit(spec, state.version(), changes.version());
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + store.qualified(spec.table()));
                s.execute("ALTER TABLE " + store.qualified(build) + " RENAME TO " + OnlineStore.quote(spec.table()));
                s.execute("ALTER INDEX " + OnlineStore.quote(store.schema()) + "."
                        + OnlineStore.quote(build + "_pkey") + " RENAME TO "
                        + OnlineStore.quote(spec.table() + "_pkey"));
            }
            saveState(c, spec, changes, columns, counts, true);
            return new SyncResult(state.version(), changes.version(), counts[0], counts[1],
                    System.nanoTime() - started);
        }
    }

    private void create(Connection c, String table, OnlineColumns columns, List<OnlineColumn> key)
            throws SQLException {
        String cols = columns.all().stream()
                .map(col -> OnlineStore.quote(col.name()) + " " + col.pgType() + (key.contains(col) ? " NOT NULL" : ""))
                .collect(Collectors.joining(", "));
        String pk = key.stream().map(k -> OnlineStore.quote(k.name())).collect(Collectors.joining(", "));
        try (Statement s = c.createStatement()) {
            // Room on each page, so that an upsert of a key (which never changes the key) can be a heap-only
            // update: no new primary key index entry per updated row.
            s.execute("CREATE TABLE IF NOT EXISTS " + store.qualified(table) + " (" + cols + ", CONSTRAINT "
                    + OnlineStore.quote(table + "_pkey") + " PRIMARY KEY (" + pk + ")) WITH (fillfactor = 80)");
        }
    }

    /**
     * Follows an additive change (new columns, in the same transaction as the rows) and the widenings ingestion itself
     * applies (integers to wider integers, real to double precision); anything else stops the sync.
     */
    private void evolve(Connection c, SyncSpec spec, SyncState state, OnlineColumns columns) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String sql : evolution(spec, state, columns)) {
                s.execute(sql);
            }
        }
    }

    /**
     * The statements that bring the table's columns to {@code columns}.
     *
     * @throws SyncException when that is not an additive change (a column removed, renamed or retyped narrower)
     */
    private List<String> evolution(SyncSpec spec, SyncState state, OnlineColumns columns) {
        List<String> statements = new ArrayList<>();
        for (SyncState.StoredColumn stored : state.columns()) {
            OnlineColumn now = columns.named(stored.name());
            if (now == null) {
                throw new SyncException("source column for '" + stored.name() + "' was removed or renamed; a synced "
                        + "table follows only additive schema changes: delete it and create it again");
            }
            if (!now.pgType().equals(stored.pgType())) {
                if (!widens(stored.pgType(), now.pgType())) {
                    throw new SyncException("source column '" + String.join(".", now.path()) + "' changed type from "
                            + stored.pgType() + " to " + now.pgType() + "; a synced table follows only additive "
                            + "schema changes: delete it and create it again");
                }
                statements.add("ALTER TABLE " + store.qualified(spec.table()) + " ALTER COLUMN "
                        + OnlineStore.quote(now.name()) + " TYPE " + now.pgType());
            }
        }
        for (OnlineColumn col : columns.all()) {
            if (state.column(col.name()) == null) {
                statements.add("ALTER TABLE " + store.qualified(spec.table()) + " ADD COLUMN "
                        + OnlineStore.quote(col.name()) + " " + col.pgType());
            }
        }
        return statements;
    }

    private static boolean widens(String from, String to) {
        return switch (from) {
            case "smallint" -> to.equals("integer") || to.equals("bigint");
            case "integer" -> to.equals("bigint");
            case "real" -> to.equals("double precision");
            default -> false;
        };
    }

    /** Writes the rows, latest per key; returns {rows read with a key, rows skipped for a NULL key}. */
    private long[] write(Connection c, String table, OnlineColumns columns, List<OnlineColumn> key, OnlineColumn ts,
            TableChanges changes) throws SQLException {
        List<OnlineColumn> all = columns.all();
        int tsIndex = ts == null ? -1 : all.indexOf(ts);
        int[] keyIndex = key.stream().mapToInt(all::indexOf).toArray();
        long read = 0;
        long nullKeys = 0;
        Map<List<Object>, Object[]> chunk = new LinkedHashMap<>();
        Upserts upserts = new Upserts(c, table, all, key, ts);
        try {
            while (changes.hasNext()) {
                Map<String, Object> row = changes.next();
                Object[] values = new Object[all.size()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = extract(row, all.get(i).path());
                }
                List<Object> k = new ArrayList<>(keyIndex.length);
                boolean nullKey = false;
                for (int i : keyIndex) {
                    nullKey |= values[i] == null;
                    k.add(values[i]);
                }
                if (nullKey) {
                    nullKeys++;
                    continue;
                }
                read++;
                Object[] held = chunk.get(k);
                if (held == null || tsIndex < 0 || !older(values[tsIndex], held[tsIndex])) {
                    chunk.put(k, values);
                }
                if (chunk.size() >= CHUNK_KEYS) {
                    upserts.write(chunk.values());
                    chunk.clear();
                }
            }
            upserts.write(chunk.values());
        } finally {
            upserts.close();
        }
        return new long[] {read, nullKeys};
    }

    /** True when {@code incoming} orders before {@code held}; NULL orders before everything. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static boolean older(Object incoming, Object held) {
        if (incoming == null) {
            return held != null;
        }
        if (held == null) {
            return false;
        }
        return ((Comparable) incoming).compareTo(held) < 0;
    }

    /**
     * Multi-row upserts: one statement per up to {@link #ROWS_PER_STATEMENT} distinct keys (a statement may not touch
     * one key twice, hence the per-key reduction before), so a sync costs a round trip per few hundred rows rather
     * than per row.
     */
    private final class Upserts implements AutoCloseable {
        private final Connection c;
        private final String table;
        private final List<OnlineColumn> all;
        private final List<OnlineColumn> key;
        private final OnlineColumn ts;
        private final int rowsPerStatement;
        private final Map<Integer, PreparedStatement> statements = new HashMap<>();

        Upserts(Connection c, String table, List<OnlineColumn> all, List<OnlineColumn> key, OnlineColumn ts) {
            this.c = c;
            this.table = table;
            this.all = all;
            this.key = key;
            this.ts = ts;
            // PostgreSQL's protocol allows 65535 parameters per statement.
            this.rowsPerStatement = Math.max(1, Math.min(ROWS_PER_STATEMENT, 30_000 / Math.max(1, all.size())));
        }

        void write(java.util.Collection<Object[]> rows) throws SQLException {
            List<Object[]> list = new ArrayList<>(rows);
            for (int from = 0; from < list.size(); from += rowsPerStatement) {
                int n = Math.min(rowsPerStatement, list.size() - from);
                PreparedStatement s = statements.get(n);
                if (s == null) {
                    s = c.prepareStatement(upsertSql(table, all, key, ts, n));
                    statements.put(n, s);
                }
                int p = 1;
                for (int r = from; r < from + n; r++) {
                    Object[] values = list.get(r);
                    for (int i = 0; i < values.length; i++) {
                        bind(s, p++, all.get(i), values[i]);
                    }
                }
                s.executeUpdate();
            }
        }

        @Override
        public void close() throws SQLException {
            for (PreparedStatement s : statements.values()) {
                s.close();
            }
        }
    }

    private String upsertSql(String table, List<OnlineColumn> all, List<OnlineColumn> key, OnlineColumn ts,
            int rows) {
        String names = all.stream().map(c -> OnlineStore.quote(c.name())).collect(Collectors.joining(", "));
        String params = all.stream().map(c -> c.json() ? "CAST(? AS jsonb)" : "?")
                .collect(Collectors.joining(", ", "(", ")"));
        String pk = key.stream().map(k -> OnlineStore.quote(k.name())).collect(Collectors.joining(", "));
        List<OnlineColumn> rest = all.stream().filter(c -> !key.contains(c)).toList();
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(store.qualified(table)).append(" AS t (")
                .append(names).append(") VALUES ");
        for (int r = 0; r < rows; r++) {
            sql.append(r == 0 ? "" : ", ").append(params);
        }
        sql.append(" ON CONFLICT (").append(pk).append(") ");
        if (rest.isEmpty()) {
            return sql.append("DO NOTHING").toString();
        }
        sql.append("DO UPDATE SET ").append(rest.stream()
                .map(c -> OnlineStore.quote(c.name()) + " = EXCLUDED." + OnlineStore.quote(c.name()))
                .collect(Collectors.joining(", ")));
        if (ts != null) {
            String q = OnlineStore.quote(ts.name());
            sql.append(" WHERE t.").append(q).append(" IS NULL OR EXCLUDED.").append(q).append(" >= t.").append(q);
        }
        return sql.toString();
    }

    private void saveState(Connection c, SyncSpec spec, TableChanges changes, OnlineColumns columns, long[] counts,
            boolean reset) throws SQLException {
        List<SyncState.StoredColumn> stored = columns.all().stream()
                .map(col -> new SyncState.StoredColumn(col.name(), col.pgType())).toList();
        String counters = reset ? "rows_synced = ?, null_keys_skipped = ?"
                : "rows_synced = rows_synced + ?, null_keys_skipped = null_keys_skipped + ?";
        try (PreparedStatement s = c.prepareStatement("UPDATE " + store.stateTable() + " SET version = ?, "
                + counters + ", columns = ?, source_committed_at = ?, synced_at = now(), state = ?, "
                + "state_message = NULL, source_table_id = ? WHERE synced_table_id = ?")) {
            s.setLong(1, changes.version());
            s.setLong(2, counts[0]);
            s.setLong(3, counts[1]);
            s.setString(4, OnlineStore.formatColumns(stored));
            s.setTimestamp(5, Timestamp.from(Instant.ofEpochMilli(changes.committedAtMs())));
            s.setString(6, SyncState.ONLINE);
            s.setString(7, changes.tableId());
            s.setString(8, spec.id());
            s.executeUpdate();
        }
    }

    /** The value at a path of nested structs (maps); null when a struct on the way is null. */
    @SuppressWarnings("unchecked")
    static Object extract(Map<String, Object> row, List<String> path) {
        Object v = row;
        for (String p : path) {
            if (!(v instanceof Map)) {
                return null;
            }
            v = ((Map<String, Object>) v).get(p);
        }
        return v;
    }

    static void bind(PreparedStatement s, int i, OnlineColumn column, Object v) throws SQLException {
        if (v == null) {
            s.setNull(i, java.sql.Types.OTHER);
        } else if (column.json()) {
            s.setString(i, json(v));
        } else if (v instanceof Instant instant) {
            s.setObject(i, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
        } else if (v instanceof Byte b) {
            s.setShort(i, b);
        } else if (v instanceof byte[] bytes) {
            s.setBytes(i, bytes);
        } else {
            s.setObject(i, v); // Boolean, Short, Integer, Long, Float, Double, String, BigDecimal, LocalDate(Time)
        }
    }

    /** JSON text for an array, map or struct value (maps' keys as strings, binary as base64, times ISO-8601). */
    static String json(Object v) {
        StringBuilder b = new StringBuilder();
        json(v, b);
        return b.toString();
    }

    private static void json(Object v, StringBuilder b) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long || v instanceof Short
                || v instanceof Byte || v instanceof BigDecimal) {
            b.append(v);
        } else if (v instanceof Double d) {
            b.append(d.isNaN() || d.isInfinite() ? "null" : d.toString());
        } else if (v instanceof Float f) {
            b.append(f.isNaN() || f.isInfinite() ? "null" : f.toString());
        } else if (v instanceof Map<?, ?> m) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                string(String.valueOf(e.getKey()), b);
                b.append(':');
                json(e.getValue(), b);
            }
            b.append('}');
        } else if (v instanceof List<?> l) {
            b.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    b.append(',');
                }
                json(l.get(i), b);
            }
            b.append(']');
        } else if (v instanceof byte[] bytes) {
            string(Base64.getEncoder().encodeToString(bytes), b);
        } else {
            string(v.toString(), b); // String, Instant, LocalDate, LocalDateTime
        }
    }

    private static void string(String s, StringBuilder b) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20 || ch == 0) {
                        b.append(String.format("\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        b.append('"');
    }
}
