package io.tributary.features;

import io.tributary.online.OnlineStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A feature view's online state in the online database (the synced tables' schema, {@link OnlineStore}): a state row
 * in {@code _feature_state}, the partial aggregates per entity, feature and tile ({@code <tables>_tiles}) and the
 * newest final window's value per entity and feature ({@code <tables>_latest}). The three change in one transaction,
 * together with the consumed source version, which is the online half of exactly once.
 */
public final class FeatureStore {
    private final OnlineStore online;
    private volatile boolean prepared;

    /**
     * Per view, the tiles as this process's last committed round left them, with that round's version: the next round
     * of this process starts from them instead of reading every tile again. Taken (removed) by the round that uses
     * them, so a round that fails leaves nothing stale behind.
     */
    private final Map<String, Cached> cache = new java.util.concurrent.ConcurrentHashMap<>();

    private record Cached(long version, int firstFiles, HeldTiles tiles) {}

    public FeatureStore(OnlineStore online) {
        this.online = online;
    }

    /** {@code firstFiles}: the position within a first round in parts ({@link FeatureState#firstFiles}). */
    HeldTiles cached(String viewId, long version, int firstFiles) {
        Cached c = cache.remove(viewId);
        return c != null && c.version() == version && c.firstFiles() == firstFiles ? c.tiles() : null;
    }

    void cache(String viewId, long version, int firstFiles, HeldTiles tiles) {
        cache.put(viewId, new Cached(version, firstFiles, tiles));
    }

    /**
     * Lets go of the tiles kept for the views not in {@code viewIds} (deleted or stopped, possibly by another process,
     * which cannot clear this one's memory), or for {@code viewIds} themselves when {@code keep} is false.
     */
    public void release(java.util.Collection<String> viewIds, boolean keep) {
        if (keep) {
            cache.keySet().retainAll(viewIds instanceof java.util.Set<?> ? viewIds : new java.util.HashSet<>(viewIds));
        } else {
            cache.keySet().removeAll(viewIds);
        }
    }

    /** The views whose tiles this process keeps between its rounds (tests). */
    public java.util.Set<String> heldViews() {
        return java.util.Set.copyOf(cache.keySet());
    }

    Connection connection() throws SQLException {
        Connection c = online.connection();
        prepare(c);
        return c;
    }

    String stateTable() {
        return OnlineStore.quote(online.schema()) + "._feature_state";
    }

    String tiles(FeatureViewSpec spec) {
        return online.qualified(spec.tables() + "_tiles");
    }

    String latest(FeatureViewSpec spec) {
        return online.qualified(spec.tables() + "_latest");
    }

    private void prepare(Connection c) throws SQLException {
        if (prepared) {
            return;
        }
        synchronized (this) {
            if (prepared) {
                return;
            }
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS " + stateTable() + " (view_id text PRIMARY KEY, "
                        + "version bigint NOT NULL DEFAULT -1, max_event_time bigint NOT NULL DEFAULT "
                        + Long.MIN_VALUE + ", watermark bigint NOT NULL DEFAULT " + Long.MIN_VALUE + ", "
                        + "final_through bigint NOT NULL DEFAULT " + Long.MIN_VALUE + ", "
                        + "records_read bigint NOT NULL DEFAULT 0, late_dropped bigint NOT NULL DEFAULT 0, "
                        + "skipped bigint NOT NULL DEFAULT 0, source_committed_at timestamptz, updated_at timestamptz, "
                        + "state text NOT NULL DEFAULT 'PROVISIONING', state_message text)");
                // Added with the first round in parts: a state table of an earlier release gets them here.
                s.execute("ALTER TABLE " + stateTable() + " ADD COLUMN IF NOT EXISTS first_version bigint NOT NULL "
                        + "DEFAULT -1, ADD COLUMN IF NOT EXISTS first_files integer NOT NULL DEFAULT 0, "
                        + "ADD COLUMN IF NOT EXISTS source_table_id text");
            } catch (SQLException e) {
                // two processes creating (23505) or adding the columns (42701) at once
                if (!"23505".equals(e.getSQLState()) && !"42701".equals(e.getSQLState())) {
                    throw e;
                }
            } finally {
                c.setAutoCommit(auto);
            }
            prepared = true;
        }
    }

    /** Views whose tiles' expiry index this process made sure of. */
    private final java.util.Set<String> indexed = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private String expiryIndex(FeatureViewSpec spec) {
        return "CREATE INDEX IF NOT EXISTS " + OnlineStore.quote(spec.tables() + "_tiles_expiry") + " ON "
                + tiles(spec) + " (feature, tile_start)";
    }

    /** Creates the view's tables and its state row (version -1); existing ones are kept. */
    public void register(FeatureViewSpec spec) {
        try (Connection c = connection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute("CREATE TABLE IF NOT EXISTS " + tiles(spec) + " (entity text NOT NULL, feature smallint NOT "
                    + "NULL, tile_start bigint NOT NULL, agg bytea NOT NULL, PRIMARY KEY (entity, feature, "
                    + "tile_start))");
            s.execute(expiryIndex(spec));
            s.execute("CREATE TABLE IF NOT EXISTS " + latest(spec) + " (entity text NOT NULL, feature smallint NOT "
                    + "NULL, window_start bigint NOT NULL, window_end bigint NOT NULL, agg bytea NOT NULL, "
                    + "PRIMARY KEY (entity, feature))");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO " + stateTable()
                    + " (view_id) VALUES (?) ON CONFLICT (view_id) DO NOTHING")) {
                p.setString(1, spec.id());
                p.executeUpdate();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot register feature view " + spec.name() + " in the online "
                    + "database: " + e.getMessage(), e);
        }
    }

    public void drop(FeatureViewSpec spec) {
        drop(spec.id(), spec.name(), spec.tables());
    }

    /**
     * Drops a view's state row and online tables by its id and table prefix alone: a delete must not depend on
     * compiling the view, which reads its source, and a view whose source stream or table is gone has none to read.
     */
    public void drop(String viewId, String viewName, String tables) {
        cache.remove(viewId);
        String tiles = online.qualified(tables + "_tiles");
        String latest = online.qualified(tables + "_latest");
        try (Connection c = connection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement();
                    PreparedStatement d = c.prepareStatement("DELETE FROM " + stateTable() + " WHERE view_id = ?")) {
                d.setString(1, viewId);
                d.executeUpdate();
                s.execute("DROP TABLE IF EXISTS " + tiles);
                s.execute("DROP TABLE IF EXISTS " + latest);
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop the online tables of " + viewName + ": "
                    + e.getMessage(), e);
        }
    }

    public FeatureState state(String viewId) {
        try (Connection c = connection()) {
            c.setAutoCommit(true);
            return state(c, viewId, false);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the state of feature view " + viewId + ": "
                    + e.getMessage(), e);
        }
    }

    FeatureState state(Connection c, String viewId, boolean lock) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT version, max_event_time, watermark, final_through, "
                + "records_read, late_dropped, skipped, source_committed_at, updated_at, state, state_message, "
                + "first_version, first_files, source_table_id FROM "
                + stateTable() + " WHERE view_id = ?" + (lock ? " FOR UPDATE" : ""))) {
            s.setString(1, viewId);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new FeatureState(viewId, rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                        rs.getLong(5), rs.getLong(6), rs.getLong(7), instant(rs.getTimestamp(8)),
                        instant(rs.getTimestamp(9)), rs.getString(10), rs.getString(11), rs.getLong(12),
                        rs.getInt(13), rs.getString(14));
            }
        }
    }

    /**
     * Runs {@code work} holding the view's state row lock, as a round does: the view's rounds (in any process) and its
     * deletion wait for it. Empty, without running it, when the view is gone or a round holds the lock (no waiting). For table maintenance of the offline
     * table, whose rewrite must not interleave with a round's append.
     */
    public <T> Optional<T> whileLocked(String viewId, Supplier<T> work) {
        try (Connection c = connection()) {
            c.setAutoCommit(false);
            try {
                if (lockState(c, viewId, 0) == null) {
                    c.rollback();
                    return Optional.empty();
                }
                T done = work.get();
                c.commit();
                return Optional.of(done);
            } catch (FeatureViewBusyException e) {
                c.rollback();
                return Optional.empty(); // a round holds it: maintained at the next run
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot lock the state of feature view " + viewId + ": "
                    + e.getMessage(), e);
        }
    }

    /** PostgreSQL's lock_not_available, what {@code lock_timeout} raises. */
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    /**
     * The state row locked FOR UPDATE, waiting at most {@code waitMs} for a holder (a round elsewhere, maintenance):
     * bounded so that a long round (a first one over a large history) makes the others skip instead of failing on the
     * connection's socket timeout. Null when the view is gone.
     *
     * @throws FeatureViewBusyException when the row stayed locked for {@code waitMs}
     */
    FeatureState lockState(Connection c, String viewId, long waitMs) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL lock_timeout = " + Math.max(1, waitMs));
        }
        FeatureState st;
        try {
            st = state(c, viewId, true);
        } catch (SQLException e) {
            if (LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                throw new FeatureViewBusyException("feature view " + viewId + " is being materialized or maintained "
                        + "elsewhere");
            }
            throw e;
        }
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL lock_timeout = 0");
        }
        return st;
    }

    public void setState(String viewId, String state, String message) {
        try (Connection c = connection(); PreparedStatement s = c.prepareStatement("UPDATE " + stateTable()
                + " SET state = ?, state_message = ? WHERE view_id = ?")) {
            c.setAutoCommit(true);
            s.setString(1, state);
            s.setString(2, message);
            s.setString(3, viewId);
            s.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot record the state of feature view " + viewId + ": "
                    + e.getMessage(), e);
        }
    }

    void saveState(Connection c, FeatureState s) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("UPDATE " + stateTable() + " SET version = ?, "
                + "max_event_time = ?, watermark = ?, final_through = ?, records_read = ?, late_dropped = ?, "
                + "skipped = ?, source_committed_at = ?, updated_at = now(), state = ?, state_message = NULL, "
                + "first_version = ?, first_files = ?, source_table_id = ? WHERE view_id = ?")) {
            p.setLong(1, s.version());
            p.setLong(2, s.maxEventTime());
            p.setLong(3, s.watermark());
            p.setLong(4, s.finalThrough());
            p.setLong(5, s.recordsRead());
            p.setLong(6, s.lateDropped());
            p.setLong(7, s.skipped());
            p.setTimestamp(8, s.sourceCommittedAt() == null ? null : Timestamp.from(s.sourceCommittedAt()));
            p.setString(9, FeatureState.ONLINE);
            p.setLong(10, s.firstVersion());
            p.setInt(11, s.firstFiles());
            p.setString(12, s.sourceTableId());
            p.setString(13, s.viewId());
            p.executeUpdate();
        }
    }

    /** Every tile the view keeps (those windows not yet final may still need). */
    HeldTiles loadTiles(Connection c, FeatureViewSpec spec) throws SQLException {
        HeldTiles out = new HeldTiles(spec.features().size());
        try (Statement s = c.createStatement()) {
            s.setFetchSize(10_000);
            try (ResultSet rs = s.executeQuery("SELECT entity, feature, tile_start, agg FROM " + tiles(spec))) {
                while (rs.next()) {
                    int f = rs.getShort(2);
                    out.put(new TileKey(rs.getString(1), f, rs.getLong(3)),
                            Aggregate.fromBytes(spec.features().get(f).function(), rs.getBytes(4)));
                }
            }
        }
        return out;
    }

    /**
     * The as-of-now lookup's one statement ({@link FeatureLookup.Now}): the view's watermark, the entities' tiles and
     * their newest final windows, in one snapshot of the database (one statement sees one), so a round's transaction
     * is seen whole or not at all. Parameters: {@code $1} the view's id, {@code $2} the entities' keys as
     * {@code text[]}. Columns: kind (0 the state, 1 a tile, 2 a final window), entity, feature, start (the watermark for
     * the state), end, aggregate.
     */
    public String nowStatement(FeatureViewSpec spec) {
        return "SELECT 0 AS kind, NULL::text AS entity, 0::smallint AS feature, watermark AS start, 0::bigint AS "
                + "\"end\", NULL::bytea AS agg FROM " + stateTable() + " WHERE view_id = $1 "
                + "UNION ALL SELECT 1, entity, feature, tile_start, 0, agg FROM " + tiles(spec)
                + " WHERE entity = ANY ($2::text[]) "
                + "UNION ALL SELECT 2, entity, feature, window_start, window_end, agg FROM " + latest(spec)
                + " WHERE entity = ANY ($2::text[])";
    }

    /** A window of one feature and its aggregate (null: a rolling window that holds no record any more). */
    record Window(long start, long end, Aggregate aggregate) {}

    /**
     * Writes the tiles the round changed ({@link Aggregate#dirty}, cleared here) that a window not yet final still
     * needs ({@code keep}); a changed tile the watermark already passed is not written only to be deleted again.
     * {@code changed}: the keys of the tiles the round changed, when it listed them (else null: every tile held is
     * looked at). The statements run on {@code writes}' thread: the caller goes on computing meanwhile.
     */
    void writeTiles(Connection c, FeatureViewSpec spec, Collection<TileKey> changed, HeldTiles tiles,
            java.util.function.Predicate<TileKey> keep, BackgroundWrites writes) throws SQLException {
        try (ArrayBatch batch = new ArrayBatch(c, "INSERT INTO " + tiles(spec) + " (entity, feature, tile_start, agg) "
                + "SELECT * FROM unnest(?::text[], ?::smallint[], ?::bigint[], ?::bytea[]) ON CONFLICT (entity, "
                + "feature, tile_start) DO UPDATE SET agg = EXCLUDED.agg", writes, "text", "smallint", "bigint",
                "bytea")) {
            if (changed != null) {
                for (TileKey k : changed) {
                    write(batch, k, tiles.get(k), keep);
                }
            } else {
                for (Map.Entry<TileKey, Aggregate> e : tiles.entries()) {
                    write(batch, e.getKey(), e.getValue(), keep);
                }
            }
        }
    }

    private static void write(ArrayBatch batch, TileKey k, Aggregate a, java.util.function.Predicate<TileKey> keep)
            throws SQLException {
        if (a == null || !a.dirty) {
            return;
        }
        a.dirty = false;
        if (keep.test(k)) {
            batch.add(k.entity(), (short) k.feature(), k.start(), a.toBytes());
        }
    }

    /** Drops, per feature, the tiles no longer needed (as {@code Materializer}'s in-memory twin). */
    void expireTiles(Connection c, FeatureViewSpec spec, long watermark) throws SQLException {
        if (!indexed.contains(spec.id())) {
            // The tiles' key leads with the entity: without this index each round's expiry scanned the whole table
            // (views created before it get it at their first round in a process; IF NOT EXISTS then costs nothing).
            try (Statement s = c.createStatement()) {
                s.execute(expiryIndex(spec));
            }
            indexed.add(spec.id());
        }
        try (PreparedStatement s = c.prepareStatement("DELETE FROM " + tiles(spec) + " WHERE feature = ? AND "
                + "tile_start <= ?")) {
            for (int f = 0; f < spec.features().size(); f++) {
                long d = spec.features().get(f).window().retainedMs();
                if (watermark == Long.MIN_VALUE || watermark - d > watermark) {
                    continue;
                }
                s.setShort(1, (short) f);
                s.setLong(2, watermark - d);
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    /**
     * Keeps per entity and feature the window with the greatest end, written in batches as a round produces them (a
     * first round over a large history has one per entity and feature: never all held at once).
     */
    LatestWriter latestWriter(Connection c, FeatureViewSpec spec, BackgroundWrites writes) throws SQLException {
        int together = 0;
        for (Feature f : spec.features()) {
            if (f.window().kind() != FeatureWindow.Kind.ROLLING) {
                together++;
            }
        }
        return new LatestWriter(new ArrayBatch(c, "INSERT INTO " + latest(spec) + " AS t (entity, feature, "
                + "window_start, window_end, agg) SELECT * FROM unnest(?::text[], ?::smallint[], ?::bigint[], "
                + "?::bigint[], ?::bytea[]) ON CONFLICT (entity, feature) DO UPDATE SET window_start = "
                + "EXCLUDED.window_start, window_end = EXCLUDED.window_end, agg = EXCLUDED.agg "
                + "WHERE EXCLUDED.window_end >= t.window_end", writes, "text", "smallint", "bigint", "bigint",
                "bytea"), spec.features().size(), together);
    }

    /**
     * The feature number of an entity's row of newest windows that holds several features' ({@link LatestWriter}),
     * below every feature's: an earlier release's lookup passes it over.
     */
    static final short TOGETHER = -1;

    /**
     * Each entity's newest windows as a round makes them final, one row per entity and feature, except that an entity
     * with a new window for every tumbling and sliding feature of the view (two or more) gets a single row holding all
     * of them (feature {@link #TOGETHER}, its window's start and end the least start and greatest end, the aggregate
     * {@link #together}'s bytes), replacing the one it had: what a first round over a large history writes for most
     * entities, one PostgreSQL row where there were as many as features. A row per feature written by a later round
     * (only some features got a new window) stays beside it; a lookup takes, per feature, the window with the
     * greatest end of the two ({@link FeatureLookup.Now}), and a window's end only grows from round to round.
     */
    static final class LatestWriter implements AutoCloseable {
        private final ArrayBatch batch;
        private final int together;
        private String entity;
        private final int[] features;
        private final Window[] windows;
        private int size;

        private LatestWriter(ArrayBatch batch, int features, int together) {
            this.batch = batch;
            this.together = together;
            this.features = new int[features];
            this.windows = new Window[features];
        }

        /**
         * Each entity and feature at most once per writer (one statement cannot update a row twice), an entity's
         * features one after the other. A window without an aggregate (a rolling window that holds nothing any more,
         * as an earlier release wrote) is stored as empty bytes.
         */
        void add(String entity, int feature, Window w) throws SQLException {
            if (!entity.equals(this.entity)) {
                entityDone();
                this.entity = entity;
            }
            features[size] = feature;
            windows[size++] = w;
        }

        private void entityDone() throws SQLException {
            if (size == 0) {
                return;
            }
            if (size >= 2 && size == together) {
                long start = Long.MAX_VALUE;
                long end = Long.MIN_VALUE;
                for (int i = 0; i < size; i++) {
                    start = Math.min(start, windows[i].start());
                    end = Math.max(end, windows[i].end());
                }
                batch.add(entity, TOGETHER, start, end, together(features, windows, size));
            } else {
                for (int i = 0; i < size; i++) {
                    Window w = windows[i];
                    batch.add(entity, (short) features[i], w.start(), w.end(),
                            w.aggregate() == null ? new byte[0] : w.aggregate().toBytes());
                }
            }
            size = 0;
            entity = null;
        }

        @Override
        public void close() throws SQLException {
            try {
                entityDone();
            } finally {
                batch.close();
            }
        }
    }

    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.BIG_ENDIAN);
    private static final java.lang.invoke.VarHandle INTS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            int[].class, java.nio.ByteOrder.BIG_ENDIAN);
    private static final java.lang.invoke.VarHandle SHORTS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            short[].class, java.nio.ByteOrder.BIG_ENDIAN);

    /**
     * Several features' windows in one aggregate column: per window its feature (2 bytes), start and end (8 each),
     * the aggregate's length (4) and bytes ({@link Aggregate#toBytes}; none for a window without one).
     */
    static byte[] together(int[] features, Window[] windows, int size) {
        byte[][] aggregates = new byte[size][];
        int length = 0;
        for (int i = 0; i < size; i++) {
            aggregates[i] = windows[i].aggregate() == null ? new byte[0] : windows[i].aggregate().toBytes();
            length += 22 + aggregates[i].length;
        }
        byte[] out = new byte[length];
        int at = 0;
        for (int i = 0; i < size; i++) {
            SHORTS.set(out, at, (short) features[i]);
            LONGS.set(out, at + 2, windows[i].start());
            LONGS.set(out, at + 10, windows[i].end());
            INTS.set(out, at + 18, aggregates[i].length);
            System.arraycopy(aggregates[i], 0, out, at + 22, aggregates[i].length);
            at += 22 + aggregates[i].length;
        }
        return out;
    }

    /** Receives the windows of a {@link #together} row. */
    @FunctionalInterface
    interface WindowSink {
        void window(int feature, long start, long end, byte[] aggregate);
    }

    /** The windows of a {@link #together} row, in the order written. */
    static void windowsOf(byte[] together, WindowSink sink) {
        for (int at = 0; at + 22 <= together.length;) {
            int length = (int) INTS.get(together, at + 18);
            sink.window((short) SHORTS.get(together, at), (long) LONGS.get(together, at + 2),
                    (long) LONGS.get(together, at + 10), java.util.Arrays.copyOfRange(together, at + 22,
                            at + 22 + length));
            at += 22 + length;
        }
    }

    /**
     * Rows sent {@value #ARRAY_BATCH} at a time as one array per column to one statement ({@code unnest}): one round
     * trip and one execution per batch instead of per row, what a first round's millions of rows need (a JDBC batch of
     * single-row statements kept the round waiting on PostgreSQL most of its time). The statements run on
     * {@link BackgroundWrites}' thread, in the order the batches fill.
     */
    static final class ArrayBatch implements AutoCloseable {
        static final int ARRAY_BATCH = 5_000;
        private final Connection connection;
        private final String sql;
        private final BackgroundWrites writes;
        private final String[] types;
        private final Object[][] columns;
        private int size;
        /** Only ever used on the writes' thread. */
        private PreparedStatement statement;

        ArrayBatch(Connection connection, String sql, BackgroundWrites writes, String... types) {
            this.connection = connection;
            this.sql = sql;
            this.writes = writes;
            this.types = types;
            this.columns = new Object[types.length][];
            fresh();
        }

        private void fresh() {
            for (int i = 0; i < types.length; i++) {
                columns[i] = switch (types[i]) {
                    case "text" -> new String[ARRAY_BATCH];
                    case "smallint" -> new Short[ARRAY_BATCH];
                    case "bigint" -> new Long[ARRAY_BATCH];
                    case "bytea" -> new byte[ARRAY_BATCH][];
                    default -> throw new IllegalArgumentException(types[i]);
                };
            }
            size = 0;
        }

        void add(Object... values) throws SQLException {
            for (int i = 0; i < values.length; i++) {
                columns[i][size] = values[i];
            }
            if (++size >= ARRAY_BATCH) {
                flush();
            }
        }

        void flush() throws SQLException {
            if (size == 0) {
                return;
            }
            Object[][] full = new Object[types.length][];
            for (int i = 0; i < types.length; i++) {
                full[i] = size == ARRAY_BATCH ? columns[i] : java.util.Arrays.copyOf(columns[i], size);
            }
            fresh();
            writes.submit(() -> {
                if (statement == null) {
                    statement = connection.prepareStatement(sql);
                }
                for (int i = 0; i < types.length; i++) {
                    statement.setArray(i + 1, connection.createArrayOf(types[i], full[i]));
                }
                statement.executeUpdate();
            });
        }

        @Override
        public void close() throws SQLException {
            try {
                flush();
            } finally {
                writes.submit(() -> {
                    if (statement != null) {
                        statement.close();
                    }
                });
            }
        }
    }

    /** One statement of a round's transaction, run on {@link BackgroundWrites}' thread. */
    @FunctionalInterface
    interface Write {
        void run() throws SQLException;
    }

    /**
     * Runs a round's tile and newest-window statements on a thread of its own, one after the other in the order
     * submitted, on the round's connection (which the round leaves alone until {@link #await}): PostgreSQL executes
     * one batch while the round computes the next windows and writes the offline file, instead of the round waiting
     * for every batch (a first round over 1M entities waited on PostgreSQL for 40 % of its time). At most
     * {@value #IN_FLIGHT} batches wait, so memory stays bounded. The first failure is kept: what follows it is not
     * run, and {@link #submit} and {@link #await} throw it.
     */
    static final class BackgroundWrites implements AutoCloseable {
        static final int IN_FLIGHT = 2;
        private static final java.util.concurrent.ExecutorService THREADS =
                java.util.concurrent.Executors.newCachedThreadPool(r -> {
                    Thread t = new Thread(r, "feature-view-online-writes");
                    t.setDaemon(true);
                    return t;
                });
        private final java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(IN_FLIGHT);
        private java.util.concurrent.CompletableFuture<Void> tail =
                java.util.concurrent.CompletableFuture.completedFuture(null);
        private volatile Throwable failure;

        void submit(Write write) throws SQLException {
            rethrow();
            try {
                slots.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while waiting for the online writes", e);
            }
            tail = tail.thenRunAsync(() -> {
                try {
                    if (failure == null) {
                        write.run();
                    }
                } catch (SQLException | RuntimeException | Error e) {
                    failure = e;
                } finally {
                    slots.release();
                }
            }, THREADS);
        }

        /** Waits until every statement submitted ran; the connection is the caller's again. */
        void await() throws SQLException {
            tail.join();
            rethrow();
        }

        private void rethrow() throws SQLException {
            Throwable f = failure;
            if (f instanceof SQLException e) {
                throw e;
            }
            if (f instanceof RuntimeException e) {
                throw e;
            }
            if (f instanceof Error e) {
                throw e;
            }
        }

        /** Waits for what runs (the connection must be idle before it is rolled back or closed), without throwing. */
        @Override
        public void close() {
            if (failure == null) {
                failure = new SQLException("the round ended before its online writes were awaited");
            }
            tail.join();
        }
    }

    private static Instant instant(Timestamp t) {
        return t == null ? null : t.toInstant();
    }
}
