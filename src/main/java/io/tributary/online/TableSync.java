package io.tributary.online;

import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StructType;
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
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
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

    private static final Logger LOG = Logger.getLogger(TableSync.class);
    /** PostgreSQL's program_limit_exceeded: a value or row beyond what it can store. */
    static final String PROGRAM_LIMIT_EXCEEDED = "54000";

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
        Phases phases = new Phases(started);
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
                phases.locked = System.nanoTime();
                SyncResult result;
                if (spec.policy() == SyncPolicy.SNAPSHOT) {
                    result = rebuild(c, spec, state, started, false, phases);
                } else if (state.version() >= 0 && !store.exists(c, spec.table())) {
                    // Dropped outside Tributary (an operator, a restore of the database without it): the source
                    // holds every row, so the copy is rebuilt rather than every later sync failing on it.
                    LOG.warnf("synced table %s: its PostgreSQL table %s is gone (dropped outside Tributary); "
                            + "rebuilding it from the source's latest snapshot", spec.name(),
                            store.qualified(spec.table()));
                    result = rebuild(c, spec, state, started, true, phases);
                } else {
                    try {
                        result = incremental(c, spec, state, started, phases);
                    } catch (ChangesUnavailableException gone) {
                        // The sync fell behind the source's vacuum retention (a TRIGGERED table not synced for a
                        // week, a server down that long), or the source was written anew at its location: what
                        // the commits after the synced version added cannot be read, but the snapshot holds every
                        // row, so the copy is rebuilt from it as SNAPSHOT would. Rows written so far in this
                        // transaction go with the rebuild's swap.
                        LOG.warnf("synced table %s: %s; rebuilding it from the source's latest snapshot",
                                spec.name(), gone.getMessage());
                        result = rebuild(c, spec, state, started, true, phases);
                    }
                }
                phases.written = System.nanoTime();
                c.commit();
                if (result.changed() && LOG.isDebugEnabled()) {
                    long now = System.nanoTime();
                    LOG.debugf("synced table %s, %d rows: connection and state lock %d ms, listing the changes %d ms, "
                            + "reading the rows %d ms, upserting %d ms, commit %d ms", spec.name(), result.rowsRead(),
                            ms(phases.locked - started), ms(phases.listed - phases.locked),
                            ms(phases.written - phases.listed - phases.upserting), ms(phases.upserting),
                            ms(now - phases.written));
                }
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("syncing " + spec.name() + " into PostgreSQL failed: " + e.getMessage()
                    + changedOutside(e, store.qualified(spec.table())), e);
        }
    }

    /**
     * The fix, when PostgreSQL refused the rows because the table is no longer the shape the sync made it (a column
     * dropped, retyped or made NOT NULL, the primary key dropped, by hand): retrying cannot help, and the message
     * alone ("column … does not exist") did not say that the source holds every row to rebuild it from.
     */
    static String changedOutside(SQLException e, String table) {
        String state = e.getSQLState();
        boolean shape = state != null && switch (state) {
            // undefined column, datatype mismatch, cannot coerce, NOT NULL violated, no unique index for ON CONFLICT
            case "42703", "42804", "42846", "23502", "42P10" -> true;
            default -> false;
        };
        return shape ? "; the PostgreSQL table " + table + " was changed outside Tributary: drop it and the next sync "
                + "rebuilds it from the source" : "";
    }

    private static long ms(long nanos) {
        return nanos / 1_000_000;
    }

    /**
     * Where a sync's time went (logged at DEBUG): the sync delay of a CONTINUOUS table is the source commit's own wait
     * plus these, so they tell a slow database from slow reading.
     */
    private static final class Phases {
        long locked;
        long listed;
        long upserting;
        long written;

        Phases(long started) {
            locked = listed = written = started;
        }
    }

    private SyncResult incremental(Connection c, SyncSpec spec, SyncState state, long started, Phases phases)
            throws SQLException {
        try (TableChanges changes = tables.changesSince(spec.sourceLocation(), state.version())) {
            phases.listed = System.nanoTime();
            if (state.sourceTableId() != null && !state.sourceTableId().equals(changes.tableId())) {
                throw ChangesUnavailableException.replaced(spec.sourceLocation(), state.version(), "its table id "
                        + "changed from " + state.sourceTableId() + " to " + changes.tableId());
            }
            if (changes.version() == state.version()) {
                return new SyncResult(state.version(), state.version(), 0, 0, 0, 0, System.nanoTime() - started);
            }
            OnlineColumns columns = OnlineColumns.of(changes.columns());
            List<OnlineColumn> key = columns.key(spec.primaryKey());
            OnlineColumn ts = columns.timeseries(spec.timeseriesKey());
            if (state.version() < 0 || state.columns().isEmpty()) {
                create(c, spec.table(), columns, key);
            } else {
                evolve(c, spec, state, columns);
            }
            long[] counts = write(c, spec.table(), columns, key, ts, changes, phases);
            hooks.beforeCommit(spec, state.version(), changes.version());
            saveState(c, spec, changes, columns, counts, false);
            return new SyncResult(state.version(), changes.version(), counts[0], counts[1], counts[2],
                    counts[3], System.nanoTime() - started);
        }
    }

    /**
     * Builds the whole table under another name, then swaps it in: readers see the old rows or the new, never both.
     *
     * @param additiveOnly the rebuild stands for incremental syncs that could not be read (not a SNAPSHOT's), so it
     *     follows their rule: the columns may only change as {@link #evolve} allows, or applications reading the table
     *     would find a column retyped under them
     */
    private SyncResult rebuild(Connection c, SyncSpec spec, SyncState state, long started, boolean additiveOnly,
            Phases phases) throws SQLException {
        try (TableChanges changes = tables.changesSince(spec.sourceLocation(), -1)) {
            phases.listed = System.nanoTime();
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
            long[] counts = write(c, build, columns, key, ts, changes, phases);
            hooks.beforeCommit(spec, state.version(), changes.version());
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + store.qualified(spec.table()));
                s.execute("ALTER TABLE " + store.qualified(build) + " RENAME TO " + OnlineStore.quote(spec.table()));
                s.execute("ALTER INDEX " + OnlineStore.quote(store.schema()) + "."
                        + OnlineStore.quote(build + "_pkey") + " RENAME TO "
                        + OnlineStore.quote(spec.table() + "_pkey"));
            }
            saveState(c, spec, changes, columns, counts, true);
            return new SyncResult(state.version(), changes.version(), counts[0], counts[1], counts[2],
                    counts[3], System.nanoTime() - started);
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

    /**
     * Writes the rows, latest per key; returns {rows read with a key, rows skipped for a NULL key, rows skipped for a
     * key over {@link OnlineStore#MAX_KEY_BYTES}}. Values are taken
     * straight from Kernel's column vectors into one array per column (no map per row), and each chunk of distinct
     * keys goes out as one statement whatever its size (see {@link Upserts}).
     */
    private long[] write(Connection c, String table, OnlineColumns columns, List<OnlineColumn> key, OnlineColumn ts,
            TableChanges changes, Phases phases) throws SQLException {
        List<OnlineColumn> all = columns.all();
        int width = all.size();
        int tsIndex = ts == null ? -1 : all.indexOf(ts);
        int[] keyIndex = key.stream().mapToInt(all::indexOf).toArray();
        long read = 0;
        long nullKeys = 0;
        long oversized = 0;
        long tooBig = 0;
        Map<Object, Integer> slots = new HashMap<>();
        List<Object[]> chunk = new ArrayList<>();
        ColumnValues[] readers = new ColumnValues[width];
        try (Upserts upserts = new Upserts(c, table, all, key, ts, phases)) {
            FilteredColumnarBatch batch;
            while ((batch = changes.nextBatch()) != null) {
                ColumnarBatch data = batch.getData();
                for (int i = 0; i < width; i++) {
                    readers[i] = ColumnValues.of(data, all.get(i));
                }
                ColumnVector selection = batch.getSelectionVector().orElse(null);
                int size = data.getSize();
                for (int row = 0; row < size; row++) {
                    if (selection != null && (selection.isNullAt(row) || !selection.getBoolean(row))) {
                        continue;
                    }
                    Object k;
                    if (keyIndex.length == 1) {
                        k = readers[keyIndex[0]].get(row);
                    } else {
                        Object[] parts = new Object[keyIndex.length];
                        boolean nullKey = false;
                        for (int i = 0; i < keyIndex.length; i++) {
                            parts[i] = readers[keyIndex[i]].get(row);
                            nullKey |= parts[i] == null;
                        }
                        k = nullKey ? null : java.util.Arrays.asList(parts);
                    }
                    if (k == null) {
                        nullKeys++;
                        continue;
                    }
                    if (OnlineStore.keyTooLong(k)) {
                        if (oversized++ == 0) {
                            LOG.warnf("online table %s: skipped a row whose key is over %d bytes, too long for "
                                    + "PostgreSQL's primary key index (counted in the synced table's "
                                    + "oversized_keys_skipped; the source table keeps it): %.100s…",
                                    store.qualified(table), OnlineStore.MAX_KEY_BYTES, k);
                        }
                        continue;
                    }
                    read++;
                    Integer slot = slots.get(k);
                    if (slot != null && tsIndex >= 0
                            && older(readers[tsIndex].get(row), chunk.get(slot)[tsIndex])) {
                        continue;
                    }
                    Object[] values = new Object[width];
                    for (int i = 0; i < width; i++) {
                        values[i] = i == keyIndex[0] && keyIndex.length == 1 ? k : readers[i].get(row);
                    }
                    if (slot == null) {
                        slots.put(k, chunk.size());
                        chunk.add(values);
                    } else {
                        chunk.set(slot, values);
                    }
                    if (chunk.size() >= CHUNK_KEYS) {
                        tooBig += upserts.write(chunk);
                        chunk.clear();
                        slots.clear();
                    }
                }
            }
            tooBig += upserts.write(chunk);
        }
        return new long[] {read - tooBig, nullKeys, oversized, tooBig};
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
     * One column's values in a batch, read from its leaf vector as the value the upsert sends: the column's own
     * integer or floating type, timestamps as epoch microseconds and dates as epoch days (PostgreSQL turns them back
     * exactly, and they order like the times they stand for), decimals as BigDecimal, binary as bytes, jsonb as its
     * JSON text. Null where the value or a struct on its path is null, or the batch lacks the column.
     */
    private static final class ColumnValues {
        private static final ColumnValues ABSENT = new ColumnValues(null, new ColumnVector[0], null, null);

        private final ColumnVector leaf;
        private final ColumnVector[] structs;
        private final DataType type;
        private final String pgType;

        private ColumnValues(ColumnVector leaf, ColumnVector[] structs, DataType type, String pgType) {
            this.leaf = leaf;
            this.structs = structs;
            this.type = type;
            this.pgType = pgType;
        }

        static ColumnValues of(ColumnarBatch batch, OnlineColumn column) {
            List<String> path = column.path();
            StructType schema = batch.getSchema();
            ColumnVector[] structs = new ColumnVector[path.size() - 1];
            ColumnVector v = null;
            for (int i = 0; i < path.size(); i++) {
                int at = schema == null ? -1 : schema.indexOf(path.get(i));
                if (at < 0) {
                    return ABSENT;
                }
                DataType t = schema.at(at).getDataType();
                v = i == 0 ? batch.getColumnVector(at) : v.getChild(at);
                if (i < path.size() - 1) {
                    structs[i] = v;
                    schema = t instanceof StructType st ? st : null;
                } else {
                    return new ColumnValues(v, structs, t, column.pgType());
                }
            }
            return ABSENT;
        }

        Object get(int row) {
            if (leaf == null) {
                return null;
            }
            for (ColumnVector s : structs) {
                if (s.isNullAt(row)) {
                    return null;
                }
            }
            if (leaf.isNullAt(row)) {
                return null;
            }
            switch (pgType) {
                case "text":
                    return withoutNul(leaf.getString(row));
                case "bigint":
                    return integer(row);
                case "integer":
                    return (int) integer(row);
                case "smallint":
                    return (short) integer(row);
                case "double precision":
                    return type instanceof FloatType ? (double) leaf.getFloat(row) : leaf.getDouble(row);
                case "real":
                    return leaf.getFloat(row);
                case "boolean":
                    return leaf.getBoolean(row);
                case "timestamptz":
                case "timestamp":
                    return leaf.getLong(row);
                case "date":
                    return leaf.getInt(row);
                case "bytea":
                    return leaf.getBinary(row);
                case "jsonb":
                    return json(TableChanges.value(leaf, row, type));
                default:
                    return leaf.getDecimal(row); // numeric(p,s)
            }
        }

        private long integer(int row) {
            if (type instanceof ByteType) {
                return leaf.getByte(row);
            } else if (type instanceof ShortType) {
                return leaf.getShort(row);
            } else if (type instanceof IntegerType) {
                return leaf.getInt(row);
            }
            return leaf.getLong(row);
        }
    }

    /**
     * The upsert of a chunk of distinct keys (a statement may not touch one key twice, hence the per-key reduction
     * before) as one statement of one array per column, unnested by PostgreSQL: its size does not grow with the rows,
     * so parsing and planning it costs the same for 1 row or 5,000, where a multi-row VALUES list of a parameter per
     * value cost both sides work per value and a statement per 2,000 rows.
     */
    private final class Upserts implements AutoCloseable {
        private final Connection c;
        private final List<OnlineColumn> all;
        private final PreparedStatement statement;
        private final Phases phases;
        private final String table;
        private int tooBigLogged;

        Upserts(Connection c, String table, List<OnlineColumn> all, List<OnlineColumn> key, OnlineColumn ts,
                Phases phases) throws SQLException {
            this.c = c;
            this.table = store.qualified(table);
            this.all = all;
            this.phases = phases;
            this.statement = c.prepareStatement(upsertSql(table, all, key, ts));
        }

        /**
         * Upserts {@code rows}; returns how many of them it skipped because PostgreSQL cannot store them (SQLSTATE
         * 54000, program_limit_exceeded: "row is too big" for a row whose fixed-width values and short strings
         * overflow the 8 kB page a row must fit in, since only long variable-length values move out of it; an array
         * or jsonb value past its limit). The chunk runs under a savepoint: when it meets that error it is halved
         * until the rows PostgreSQL refuses stand alone, and only those are left out, each key keeping what the
         * table held before; anything else fails the sync as before.
         */
        long write(List<Object[]> rows) throws SQLException {
            if (rows.isEmpty()) {
                return 0;
            }
            java.sql.Savepoint savepoint = c.setSavepoint();
            try {
                execute(rows);
                c.releaseSavepoint(savepoint);
                return 0;
            } catch (SQLException e) {
                if (!PROGRAM_LIMIT_EXCEEDED.equals(e.getSQLState())) {
                    throw e;
                }
                c.rollback(savepoint);
                if (rows.size() == 1) {
                    if (tooBigLogged++ == 0) {
                        LOG.warnf("online table %s: skipped a row PostgreSQL cannot store (counted in the synced "
                                + "table's oversized_rows_skipped; the source table keeps it; the key keeps the row it "
                                + "had): %s", table, e.getMessage());
                    }
                    return 1;
                }
                int half = rows.size() / 2;
                return write(rows.subList(0, half)) + write(rows.subList(half, rows.size()));
            }
        }

        private void execute(List<Object[]> rows) throws SQLException {
            long started = System.nanoTime();
            for (int i = 0; i < all.size(); i++) {
                statement.setArray(i + 1, c.createArrayOf(arrayType(all.get(i)), column(rows, i, all.get(i))));
            }
            statement.executeUpdate();
            phases.upserting += System.nanoTime() - started;
        }

        @Override
        public void close() throws SQLException {
            statement.close();
        }
    }

    /** The element type a column's values are sent as (see {@link #selectExpression}). */
    private static String arrayType(OnlineColumn column) {
        return switch (column.pgType()) {
            case "boolean" -> "bool";
            case "smallint" -> "int2";
            case "integer", "date" -> "int4";
            case "bigint", "timestamptz", "timestamp" -> "int8";
            case "real" -> "float4";
            case "double precision" -> "float8";
            default -> "text"; // text, numeric, jsonb, bytea (as hex)
        };
    }

    private static Object[] column(List<Object[]> rows, int index, OnlineColumn column) {
        int n = rows.size();
        Object[] out = switch (arrayType(column)) {
            case "bool" -> new Boolean[n];
            case "int2" -> new Short[n];
            case "int4" -> new Integer[n];
            case "int8" -> new Long[n];
            case "float4" -> new Float[n];
            case "float8" -> new Double[n];
            default -> new String[n];
        };
        String pgType = column.pgType();
        for (int r = 0; r < n; r++) {
            Object v = rows.get(r)[index];
            if (v instanceof BigDecimal d) {
                v = d.toPlainString();
            } else if (v instanceof byte[] b && pgType.equals("bytea")) {
                v = java.util.HexFormat.of().formatHex(b);
            }
            out[r] = v;
        }
        return out;
    }

    /**
     * PostgreSQL's earliest timestamp (4714-11-24 BC, Julian day 0) in microseconds since 1970, and its earliest and
     * latest dates in days since 1970: a Delta timestamp or date beyond them (an Avro {@code timestamp-micros} or
     * {@code date} may hold any long or int) is stored as {@code -infinity} or {@code infinity}, which order before and
     * after every other value; sent as it is, PostgreSQL refused it ("timestamp out of range") and every later sync of
     * the table failed on that one row. Every positive microsecond count fits (year 294247 against PostgreSQL's 294276;
     * past about year 20000 the interval arithmetic may round by under a millisecond).
     */
    static final long PG_MIN_MICROS = -210_866_803_200_000_000L;
    static final int PG_MIN_DAYS = -2_440_588;
    static final int PG_MAX_DAYS = 2_145_042_905;

    /** How the unnested value {@code p} becomes the column's value. */
    private static String selectExpression(OnlineColumn column, String p) {
        return switch (column.pgType()) {
            // Seconds and microseconds apart: each factor then stays exact in the double that interval
            // multiplication takes, for any timestamp Delta holds (one product of microseconds would round past 2^53).
            case "timestamptz", "timestamp" -> {
                String type = column.pgType().equals("timestamptz") ? "TIMESTAMPTZ" : "TIMESTAMP";
                yield "CASE WHEN " + p + " < " + PG_MIN_MICROS + " THEN " + type + " '-infinity' ELSE " + type
                        + " 'epoch' + (" + p + " / 1000000) * INTERVAL '1 second' + (" + p
                        + " % 1000000) * INTERVAL '1 microsecond' END";
            }
            case "date" -> "CASE WHEN " + p + " < " + PG_MIN_DAYS + " THEN DATE '-infinity' WHEN " + p + " > "
                    + PG_MAX_DAYS + " THEN DATE 'infinity' ELSE DATE '1970-01-01' + " + p + " END";
            case "jsonb" -> "CAST(" + p + " AS jsonb)";
            case "bytea" -> "decode(" + p + ", 'hex')";
            default -> column.pgType().startsWith("numeric") ? "CAST(" + p + " AS numeric)" : p;
        };
    }

    private String upsertSql(String table, List<OnlineColumn> all, List<OnlineColumn> key, OnlineColumn ts) {
        String names = all.stream().map(c -> OnlineStore.quote(c.name())).collect(Collectors.joining(", "));
        StringBuilder select = new StringBuilder();
        StringBuilder arrays = new StringBuilder();
        StringBuilder aliases = new StringBuilder();
        for (int i = 0; i < all.size(); i++) {
            String p = "p" + i;
            select.append(i == 0 ? "" : ", ").append(selectExpression(all.get(i), p));
            arrays.append(i == 0 ? "" : ", ").append("?::").append(arrayType(all.get(i))).append("[]");
            aliases.append(i == 0 ? "" : ", ").append(p);
        }
        String pk = key.stream().map(k -> OnlineStore.quote(k.name())).collect(Collectors.joining(", "));
        List<OnlineColumn> rest = all.stream().filter(c -> !key.contains(c)).toList();
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(store.qualified(table)).append(" AS t (")
                .append(names).append(") SELECT ").append(select).append(" FROM unnest(").append(arrays)
                .append(") AS u(").append(aliases).append(")");
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
        String counters = reset ? "rows_synced = ?, null_keys_skipped = ?, oversized_keys_skipped = ?, "
                + "oversized_rows_skipped = ?"
                : "rows_synced = rows_synced + ?, null_keys_skipped = null_keys_skipped + ?, "
                        + "oversized_keys_skipped = oversized_keys_skipped + ?, "
                        + "oversized_rows_skipped = oversized_rows_skipped + ?";
        try (PreparedStatement s = c.prepareStatement("UPDATE " + store.stateTable() + " SET version = ?, "
                + counters + ", columns = ?, source_committed_at = ?, synced_at = now(), state = ?, "
                + "state_message = NULL, source_table_id = ? WHERE synced_table_id = ?")) {
            s.setLong(1, changes.version());
            s.setLong(2, counts[0]);
            s.setLong(3, counts[1]);
            s.setLong(4, counts[2]);
            s.setLong(5, counts[3]);
            s.setString(6, OnlineStore.formatColumns(stored));
            s.setTimestamp(7, Timestamp.from(Instant.ofEpochMilli(changes.committedAtMs())));
            s.setString(8, SyncState.ONLINE);
            s.setString(9, changes.tableId());
            s.setString(10, spec.id());
            s.executeUpdate();
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

    /**
     * What a NUL character of the source becomes in PostgreSQL: its {@code text} and {@code jsonb} cannot hold one,
     * and a single such value (a producer's stray byte) failed every later sync of the table, all keys waiting behind
     * it. U+FFFD, the replacement character, keeps the row and shows where the character was (SPEC 9.2); the Delta
     * table keeps the value as it came.
     */
    static final char NUL_STAND_IN = '\uFFFD';

    static String withoutNul(String s) {
        return s.indexOf('\0') < 0 ? s : s.replace('\0', NUL_STAND_IN);
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
                case '\0' -> b.append(NUL_STAND_IN); // jsonb refuses \u0000 as text refuses NUL
                default -> {
                    if (ch < 0x20) {
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
