package io.tributary.online;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The online database: one PostgreSQL schema holding every synced table's rows and a state row per synced table
 * ({@code _sync_state}: version, counters, columns, state). Because the state lives in the same database as the rows,
 * a sync writes both in one transaction, which is what makes it exactly once across crashes.
 */
public final class OnlineStore {
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private final DataSource database;
    private final String schema;
    private volatile boolean prepared;

    public OnlineStore(DataSource database, String schema) {
        if (!IDENTIFIER.matcher(schema).matches()) {
            throw new IllegalArgumentException("the online schema name '" + schema + "' must be a lower-case SQL "
                    + "identifier (letters, digits, _)");
        }
        this.database = database;
        this.schema = schema;
    }

    public String schema() {
        return schema;
    }

    /**
     * Most UTF-8 bytes the text of a primary key in the online database may hold (a synced table's key columns
     * together, a feature view's entity key text). PostgreSQL's B-tree holds an entry of at most 2,704 bytes (8 kB
     * pages), less when compression does not help: a longer key failed its statement, and with it every later sync or
     * round. Rows with such a key are skipped and counted instead; the margin leaves room for the entry's header and
     * a key's other parts.
     */
    public static final int MAX_KEY_BYTES = 2_400;

    /**
     * Whether a key's text is over {@link #MAX_KEY_BYTES}: {@code key} a string or a list of a key's parts (only the
     * strings count). A char is at most 3 UTF-8 bytes, so the exact count is taken only when that bound is over.
     */
    public static boolean keyTooLong(Object key) {
        long chars = 0;
        if (key instanceof String s) {
            chars = s.length();
        } else if (key instanceof List<?> parts) {
            for (Object part : parts) {
                chars += part instanceof String s ? s.length() : 0;
            }
        }
        if (chars * 3 <= MAX_KEY_BYTES) {
            return false;
        }
        long bytes = 0;
        for (Object part : key instanceof List<?> parts ? parts : List.of(key)) {
            bytes += part instanceof String s ? s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length : 0;
        }
        return bytes > MAX_KEY_BYTES;
    }

    public Connection connection() throws SQLException {
        prepare();
        return database.getConnection();
    }

    /** {@code schema.table}, quoted. */
    public String qualified(String table) {
        return quote(schema) + "." + quote(table);
    }

    public static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    String stateTable() {
        return quote(schema) + "._sync_state";
    }

    /** Creates the schema and the state table once per process; creates racing in other processes are harmless. */
    private void prepare() throws SQLException {
        if (prepared) {
            return;
        }
        synchronized (this) {
            if (prepared) {
                return;
            }
            for (int attempt = 0;; attempt++) {
                try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
                    c.setAutoCommit(true);
                    s.execute("CREATE SCHEMA IF NOT EXISTS " + quote(schema));
                    s.execute("CREATE TABLE IF NOT EXISTS " + stateTable() + " ("
                            + "synced_table_id text PRIMARY KEY, pg_table text NOT NULL, "
                            + "version bigint NOT NULL DEFAULT -1, rows_synced bigint NOT NULL DEFAULT 0, "
                            + "null_keys_skipped bigint NOT NULL DEFAULT 0, columns text NOT NULL DEFAULT '', "
                            + "source_committed_at timestamptz, synced_at timestamptz, "
                            + "state text NOT NULL DEFAULT 'PROVISIONING', state_message text)");
                    s.execute("ALTER TABLE " + stateTable() + " ADD COLUMN IF NOT EXISTS source_table_id text");
                    s.execute("ALTER TABLE " + stateTable() + " ADD COLUMN IF NOT EXISTS oversized_keys_skipped "
                            + "bigint NOT NULL DEFAULT 0");
                    s.execute("ALTER TABLE " + stateTable() + " ADD COLUMN IF NOT EXISTS oversized_rows_skipped "
                            + "bigint NOT NULL DEFAULT 0");
                    prepared = true;
                    return;
                } catch (SQLException e) {
                    // Two processes creating at once: one gets a unique violation on the catalog (23505), or adding
                    // a column the other added meanwhile (42701); the second try finds the objects there.
                    if (attempt >= 2 || !"23505".equals(e.getSQLState()) && !"42701".equals(e.getSQLState())) {
                        throw e;
                    }
                }
            }
        }
    }

    /**
     * This online database's marker (table {@code _marker} of the schema): the one already there, else
     * {@code candidate}, written now. Servers of one registry compare it with the registry's record at start-up.
     */
    public String claimMarker(String candidate) throws SQLException {
        try (Connection c = markerConnection(); PreparedStatement insert = c.prepareStatement("INSERT INTO "
                + markerTable() + " (marker) VALUES (?) ON CONFLICT DO NOTHING")) {
            insert.setString(1, candidate);
            insert.executeUpdate();
        }
        return marker().orElseThrow(() -> new SQLException("the online marker written to " + markerTable()
                + " cannot be read back"));
    }

    /** This online database's marker, if a server has written one (its table is created, empty, if missing). */
    public java.util.Optional<String> marker() throws SQLException {
        try (Connection c = markerConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT marker FROM " + markerTable())) {
            return rs.next() ? java.util.Optional.of(rs.getString(1)) : java.util.Optional.empty();
        }
    }

    private Connection markerConnection() throws SQLException {
        Connection c = connection();
        try (Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute("CREATE TABLE IF NOT EXISTS " + markerTable() + " (singleton boolean PRIMARY KEY DEFAULT true "
                    + "CHECK (singleton), marker text NOT NULL)");
        } catch (SQLException e) {
            if (!"23505".equals(e.getSQLState())) { // not another server creating it at the same moment
                c.close();
                throw e;
            }
        }
        return c;
    }

    /** {@code schema._marker}, quoted: what a user writes the marker into, should the message tell them to. */
    public String markerTable() {
        return quote(schema) + "._marker";
    }

    /** Creates the state row of a new synced table (PROVISIONING, version -1); an existing row is kept. */
    public void register(SyncSpec spec) {
        try (Connection c = connection(); PreparedStatement s = c.prepareStatement("INSERT INTO " + stateTable()
                + " (synced_table_id, pg_table) VALUES (?, ?) ON CONFLICT (synced_table_id) DO NOTHING")) {
            s.setString(1, spec.id());
            s.setString(2, spec.table());
            s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot register synced table " + spec.name() + " in the online "
                    + "database: " + e.getMessage(), e);
        }
    }

    /** The state of a synced table, or null when it has none. */
    public SyncState state(String id) {
        try (Connection c = connection()) {
            c.setAutoCommit(true);
            return state(c, id, false);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the sync state of " + id + ": " + e.getMessage(), e);
        }
    }

    /** Reads the state row; {@code lock}: FOR UPDATE, which serialises the syncs of one synced table. */
    SyncState state(Connection c, String id, boolean lock) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_table, version, rows_synced, null_keys_skipped, "
                + "columns, source_committed_at, synced_at, state, state_message, source_table_id, "
                + "oversized_keys_skipped, oversized_rows_skipped FROM "
                + stateTable()
                + " WHERE synced_table_id = ?" + (lock ? " FOR UPDATE" : ""))) {
            s.setString(1, id);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new SyncState(id, rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                        rs.getLong(11), rs.getLong(12), parseColumns(rs.getString(5)), instant(rs.getTimestamp(6)),
                        instant(rs.getTimestamp(7)), rs.getString(8), rs.getString(9), rs.getString(10));
            }
        }
    }

    /** Whether the synced table's PostgreSQL table exists (an operator may have dropped it by hand). */
    boolean exists(Connection c, String table) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            s.setString(1, qualified(table));
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** Records a state without touching rows or version (a failure, a stop); outside any sync's transaction. */
    public void setState(String id, String state, String message) {
        try (Connection c = connection(); PreparedStatement s = c.prepareStatement("UPDATE " + stateTable()
                + " SET state = ?, state_message = ? WHERE synced_table_id = ?")) {
            c.setAutoCommit(true);
            s.setString(1, state);
            s.setString(2, message);
            s.setString(3, id);
            s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot record the state of " + id + ": " + e.getMessage(), e);
        }
    }

    /** Drops the synced table's PostgreSQL table and its state row, in one transaction. */
    public void drop(String id, String table) {
        try (Connection c = connection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement();
                    PreparedStatement d = c.prepareStatement("DELETE FROM " + stateTable()
                            + " WHERE synced_table_id = ?")) {
                s.execute("DROP TABLE IF EXISTS " + qualified(table));
                s.execute("DROP TABLE IF EXISTS " + qualified(table + TableSync.BUILD_SUFFIX));
                d.setString(1, id);
                d.executeUpdate();
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop the online table " + table + ": " + e.getMessage(), e);
        }
    }

    /** Rows in the PostgreSQL table (an exact count), or -1 before it exists. */
    public long rowCount(String table) {
        try (Connection c = connection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM " + qualified(table))) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) {
                return -1;
            }
            throw new IllegalStateException("cannot count the rows of " + table + ": " + e.getMessage(), e);
        }
    }

    static String formatColumns(List<SyncState.StoredColumn> columns) {
        StringBuilder b = new StringBuilder();
        for (SyncState.StoredColumn c : columns) {
            b.append(c.name()).append('\t').append(c.pgType()).append('\n');
        }
        return b.toString();
    }

    static List<SyncState.StoredColumn> parseColumns(String text) {
        List<SyncState.StoredColumn> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            int tab = line.indexOf('\t');
            if (tab > 0) {
                out.add(new SyncState.StoredColumn(line.substring(0, tab), line.substring(tab + 1)));
            }
        }
        return out;
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }

    /** A jsonb value as PostgreSQL returned it: JSON text, for the caller to embed. */
    public record Json(String text) {}

    /** For tests and the bench: the rows of a synced table keyed by nothing, as column name to value. */
    public List<Map<String, Object>> rows(String table, String orderBy) {
        try (Connection c = connection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT * FROM " + qualified(table) + " ORDER BY " + quote(orderBy))) {
            List<Map<String, Object>> out = new ArrayList<>();
            while (rs.next()) {
                out.add(OnlineLookup.row(rs));
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read " + table + ": " + e.getMessage(), e);
        }
    }
}
