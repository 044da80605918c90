package io.tributary.features;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.SnapshotFiles;
import io.tributary.delta.ChangesUnavailableException;
import io.tributary.delta.TableChanges;
import io.tributary.delta.Tables;
import io.tributary.online.OnlineStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * One materialization round of a feature view, incremental and exactly once:
 *
 * <ol>
 *   <li>locks the view's state row in the online database (rounds of one view are serialised across processes) and
 *       reads the consumed source version;
 *   <li>reads only what the source's commits after it added ({@link Tables#changesSince}; everything the table holds
 *       on the first round, backfilled rows included) and adds each record to its tiles, in commit order: a record
 *       older than the watermark so far (greatest event time seen − allowed lateness) is dropped and counted, except
 *       in the first round, which takes the whole table as it is;
 *   <li>combines the tiles of every window whose end the watermark passed into the window's values and appends them to
 *       the offline Delta table with the new source version in the same commit (skipped when that table already has
 *       the version: the previous attempt crashed after it);
 *   <li>writes the changed tiles, the newest final window per entity and the new version, watermark and counters in
 *       the same PostgreSQL transaction, and drops tiles no open window needs (memory and storage stay bounded by
 *       the entities active within the longest window plus the lateness).
 * </ol>
 *
 * A crash anywhere before the PostgreSQL commit leaves the old version online; the next round reads the same records
 * and computes the same values (aggregates merge in any order with the same result), and the offline table's own
 * record of what it holds keeps it from taking a window twice.
 */
public final class Materializer {
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(Materializer.class);
    private final Tables tables;
    private final FeatureStore store;
    private final OfflineFeatures offline;
    private final MaterializeHooks hooks;

    /** Source commits one round takes at most. */
    static final int MAX_COMMITS = 200;
    /** How long a round waits for another round's lock on the view, well below the connection's socket timeout. */
    static final long LOCK_WAIT_MS = 10_000;

    /**
     * Records a part of a first round takes at least (whole files), unless the files end: the tiles of one part (and
     * of the windows still open) are what the round holds, whatever the size of the source.
     */
    public static final int CHUNK_RECORDS = 200_000;
    /** Files a part of a first round takes at most. */
    static final int MAX_CHUNK_FILES = 1000;
    /** What a file without statistics counts as. */
    static final long UNKNOWN_FILE_RECORDS = 10_000;
    /**
     * How far a record's event time may be after its commit's time (the commit file's time: the warehouse's clock).
     * One beyond it (a producer's clock far off, a local time sent as UTC, microseconds sent as milliseconds) is
     * skipped: kept, it moved the watermark to its time, and every later record of every entity was dropped as late.
     * An hour: wide enough for any clock skew between producers and the warehouse, and a bound on what one record
     * from a clock ahead can make late.
     */
    public static final long MAX_AHEAD_MS = 60 * 60_000;

    private final int chunkRecords;

    private record Pending(String viewId, long version, int firstFiles, HeldTiles tiles) {}

    private Pending pending;

    public Materializer(Tables tables, FeatureStore store, MaterializeHooks hooks) {
        this(tables, store, hooks, CHUNK_RECORDS);
    }

    /** {@code chunkRecords}: see {@link #CHUNK_RECORDS} (tests take a first round in parts of a few records). */
    public Materializer(Tables tables, FeatureStore store, MaterializeHooks hooks, int chunkRecords) {
        this.chunkRecords = Math.max(1, chunkRecords);
        this.tables = tables;
        this.store = store;
        this.offline = new OfflineFeatures(tables);
        this.hooks = hooks;
    }

    public MaterializeResult run(FeatureViewSpec spec) {
        try (Connection c = store.connection()) {
            c.setAutoCommit(false);
            try {
                pending = null;
                MaterializeResult r = round(c, spec);
                c.commit();
                if (pending != null) {
                    store.cache(pending.viewId(), pending.version(), pending.firstFiles(), pending.tiles());
                }
                return r;
            } catch (FeatureViewBusyException e) {
                c.rollback();
                return MaterializeResult.busy();
            } catch (SQLException | RuntimeException e) {
                // A connection the failure closed cannot roll back: keep the failure, not the rollback's complaint.
                try {
                    c.rollback();
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("materializing " + spec.name() + " into PostgreSQL failed: "
                    + e.getMessage(), e);
        }
    }

    /** The round's own CPU and garbage, for its DEBUG line: on a shared machine its wall time says more about the load. */
    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    private static long allocated() {
        return THREADS instanceof com.sun.management.ThreadMXBean t ? t.getCurrentThreadAllocatedBytes() : -1;
    }

    private MaterializeResult round(Connection c, FeatureViewSpec spec) throws SQLException {
        long t0 = System.nanoTime();
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        long bytes0 = allocated();
        FeatureState st = store.lockState(c, spec.id(), LOCK_WAIT_MS);
        if (st == null) {
            throw new FeatureViewGoneException("feature view " + spec.name() + " was deleted");
        }
        long latest = tables.open(spec.sourceLocation()).version();
        if (latest < st.version()) {
            throw ChangesUnavailableException.replaced(spec.sourceLocation(), st.version(), "its latest version is "
                    + latest);
        }
        if (latest == st.version()) {
            return new MaterializeResult(st.version(), st.version(), 0, 0, 0, st.watermark(), false);
        }
        // The tiles this process kept after its own last round of the view, if that round is the one the state row
        // records; else (another process's round, a failed one, a restart) read them again.
        HeldTiles tiles = store.cached(spec.id(), st.version(), st.firstFiles());
        if (tiles == null) {
            tiles = store.loadTiles(c, spec);
        }
        // A round after the first lists the tiles it changes, so writing them does not walk every tile held (a live
        // view holds every entity's tiles of its longest window; a round changes those of a second's records). A
        // first round changes nearly all it holds: the list would only double its memory, so it walks them.
        Reading r = new Reading(spec, tiles, st.maxEventTime(), st.version() < 0 ? null : new ArrayList<>());
        long watermark = st.watermark();
        long upTo;
        long committedAt = 0;
        String sourceId = st.sourceTableId();
        long firstVersion = -1;
        int firstFiles = 0;
        if (st.version() < 0) {
            // The first round: the source's snapshot as it is (nothing is late), backfilled rows included, in parts.
            SnapshotFiles snapshot = tables.snapshotFiles(spec.sourceLocation(),
                    st.firstFiles() > 0 ? st.firstVersion() : -1, spec.timestampPath());
            if (snapshot.deletionVectors()) {
                // Rows deleted from files: only Kernel's scan reads such a snapshot right, and it reads it whole.
                try (TableChanges changes = tables.changesBetween(spec.sourceLocation(), -1, snapshot.version())) {
                    committedAt = changes.committedAtMs();
                    sourceId = sameSource(spec, st, changes);
                    FeatureViewCompiler.checkStillFits(spec, changes.columns());
                    r.all(changes, Long.MIN_VALUE);
                }
                upTo = snapshot.version();
                watermark = Math.max(watermark, minus(r.maxEvent, spec.latenessMs()));
            } else {
                List<SnapshotFiles.File> files = inEventTimeOrder(spec, snapshot.files());
                int end = chunkEnd(files, st.firstFiles());
                try (TableChanges changes = tables.changesOf(spec.sourceLocation(), snapshot.version(),
                        files.subList(st.firstFiles(), end)).only(columnsRead(spec))) {
                    committedAt = changes.committedAtMs();
                    sourceId = sameSource(spec, st, changes);
                    FeatureViewCompiler.checkStillFits(spec, changes.columns());
                    r.all(changes, Long.MIN_VALUE);
                }
                if (end < files.size()) {
                    // Every record still to read is at or after the least event time of the files still to read,
                    // so the windows ending by then are complete: final (capped, as at the round's end, by the
                    // greatest event time seen less the lateness), and the tiles only they need can go.
                    upTo = -1;
                    firstVersion = snapshot.version();
                    firstFiles = end;
                    watermark = Math.max(watermark, Math.min(minMillis(spec, files.get(end)),
                            minus(r.maxEvent, spec.latenessMs())));
                } else {
                    upTo = snapshot.version();
                    watermark = Math.max(watermark, minus(r.maxEvent, spec.latenessMs()));
                }
            }
        } else {
            // Commit by commit, at most MAX_COMMITS per round (a round is one PostgreSQL transaction and one offline
            // commit: catching up a long backlog goes in bounded steps).
            upTo = Math.min(latest, st.version() + MAX_COMMITS);
            for (long v = st.version() + 1; v <= upTo; v++) {
                // A commit that rewrites files (a rescued-records replay, another writer's UPDATE or MERGE) brings
                // only the rows it changed: the rewritten files' other rows were read when they were first added.
                try (TableChanges changes = tables.changesBetween(spec.sourceLocation(), v - 1, v)
                        .only(columnsRead(spec)).netOfRewrites()) {
                    committedAt = changes.committedAtMs();
                    sourceId = sameSource(spec, st, changes);
                    FeatureViewCompiler.checkStillFits(spec, changes.columns());
                    // The watermark as the previous commit left it (Spark's rule per micro-batch, here per commit).
                    r.all(changes, watermark);
                }
                watermark = Math.max(watermark, minus(r.maxEvent, spec.latenessMs()));
            }
        }
        if (r.ahead > 0) {
            LOG.warnf("feature view %s: skipped %d records whose event time is more than %d minutes after their "
                    + "commit (the greatest: %s): a producer's clock, time zone or the unit of %s is wrong, or the "
                    + "clock of the warehouse (which dates the commits) is behind (counted in records_skipped)",
                    spec.name(), r.ahead, MAX_AHEAD_MS / 60_000, eventTimeText(r.greatestAhead),
                    String.join(".", spec.timestampPath()));
        }
        if (r.oversized > 0) {
            LOG.warnf("feature view %s: skipped %d records whose entity key is over %d bytes, too long for "
                    + "PostgreSQL's primary key index (counted in records_skipped; the source keeps them), the first: "
                    + "%.100s…", spec.name(), r.oversized, OnlineStore.MAX_KEY_BYTES, r.firstOversized);
        }
        long t1 = System.nanoTime();
        DeltaTable table = offline.open(spec);
        OfflineFeatures.Progress progress = OfflineFeatures.progress(table);
        if (spec.features().stream().anyMatch(f -> f.window().kind() == FeatureWindow.Kind.ROLLING)
                && !OfflineFeatures.rollingChanges(table, progress)) {
            // Its rolling rows are one per precision step, which the rounds of this release no longer write: a table
            // of both forms would answer as-of reads wrongly, and its newest windows online are of the old form.
            throw new UnsupportedOperationException("the offline table at " + spec.offlineLocation() + " holds a "
                    + "rolling feature's value at every precision step, as written before rolling rows became changes "
                    + "only: delete the feature view and create it again, which computes it over everything the "
                    + "source holds");
        }
        // The windows ending after the state's final-through are this round's to publish online; those the offline
        // table holds already (a repeat of a round that died between its two commits) are not appended again.
        long from = st.finalThrough();
        long offlineFrom = Math.max(st.finalThrough(), progress.finalThrough());
        long finalWindows;
        long wm = watermark;
        long t2;
        // The tiles and newest windows go to PostgreSQL on a thread of their own while this one computes the windows
        // and writes the offline file; the connection is this thread's again after await.
        try (FeatureStore.BackgroundWrites writes = new FeatureStore.BackgroundWrites()) {
            long[] cut = expiryCuts(spec, wm);
            store.writeTiles(c, spec, r.changed, tiles,
                    k -> !expired(cut, k), writes);
            try (FeatureStore.LatestWriter latestWriter = store.latestWriter(c, spec, writes)) {
                FinalWindows rows = new FinalWindows(spec, tiles, from, offlineFrom, watermark, latestWriter);
                if (!progress.holds(upTo, firstFiles)) {
                    OfflineFeatures.append(table, table.version(), spec, rows, new OfflineFeatures.Progress(upTo,
                            Math.max(watermark, progress.finalThrough()), firstFiles), !progress.appended());
                } else {
                    rows.drain(); // the previous attempt's offline commit holds them: only the newest windows are wanted
                }
                finalWindows = rows.produced();
            }
            t2 = System.nanoTime();
            hooks.afterOfflineCommit(spec);
            writes.await();
        }
        long t3 = System.nanoTime();
        store.expireTiles(c, spec, watermark);
        expire(spec, tiles, watermark);
        store.saveState(c, new FeatureState(spec.id(), upTo, r.maxEvent, watermark,
                Math.max(offlineFrom, watermark),
                st.recordsRead() + r.read, st.lateDropped() + r.late, st.skipped() + r.skipped,
                Instant.ofEpochMilli(committedAt), null, FeatureState.ONLINE, null, firstVersion, firstFiles,
                sourceId));
        pending = new Pending(spec.id(), upTo, firstFiles, tiles);
        // Where a round's time goes (bench/features' freshness): reading the source, the offline table's file and
        // commit (tiles and newest windows sent to PostgreSQL meanwhile), waiting for those writes to end, expiry and
        // state.
        if (LOG.isDebugEnabled()) {
            LOG.debugf("round of %s to version %d: %d records read in %d ms, %d final windows written in %d ms, "
                    + "online writes awaited %d ms, expiry and state in %d ms (%d tiles held); the round's thread "
                    + "used %d ms of CPU and allocated %d KB", spec.name(), upTo, r.read, (t1 - t0) / 1_000_000,
                    finalWindows, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000, (System.nanoTime() - t3) / 1_000_000,
                    tiles.size(), (THREADS.getCurrentThreadCpuTime() - cpu0) / 1_000_000,
                    (allocated() - bytes0) / 1024);
        }
        return new MaterializeResult(st.version(), upTo, r.read, r.late, finalWindows, watermark, upTo < 0);
    }

    /**
     * The source's table id, which must be the one the state's versions are of: a source written anew at its location
     * has versions from 0 again, and reading its "commits after the consumed version" would skip its first ones.
     */
    private static String sameSource(FeatureViewSpec spec, FeatureState st, TableChanges changes) {
        if (st.sourceTableId() != null && !st.sourceTableId().equals(changes.tableId())) {
            throw ChangesUnavailableException.replaced(spec.sourceLocation(), st.version(), "its table id changed "
                    + "from " + st.sourceTableId() + " to " + changes.tableId());
        }
        return changes.tableId();
    }

    /**
     * The source's top-level columns the view reads (entities, time, features): an ingestion table's rows also hold
     * the key, the Kafka columns and value fields no feature uses, which were decoded into every row's map.
     */
    static java.util.Set<String> columnsRead(FeatureViewSpec spec) {
        java.util.Set<String> out = new java.util.HashSet<>();
        spec.entityPaths().forEach(p -> out.add(p.get(0)));
        out.add(spec.timestampPath().get(0));
        for (Feature f : spec.features()) {
            if (f.column() != null) {
                out.add(f.column().get(0));
            }
        }
        return out;
    }

    /** Records into tiles, with the round's counters. */
    private static final class Reading {
        private final FeatureViewSpec spec;
        private final HeldTiles tiles;
        /** The tiles this round changed, each once; null: not listed (see the caller). */
        final List<TileKey> changed;
        long maxEvent;
        long read;
        long late;
        long skipped;
        /** Of {@link #skipped}, records whose event time was beyond {@link #MAX_AHEAD_MS} after their commit. */
        long ahead;
        /**
         * Of {@link #skipped}, records whose entity key text is too long for the online tables' primary keys
         * ({@link OnlineStore#MAX_KEY_BYTES}: they lead with it); the first one's.
         */
        long oversized;
        String firstOversized;
        long greatestAhead = Long.MIN_VALUE;

        Reading(FeatureViewSpec spec, HeldTiles tiles, long maxEvent, List<TileKey> changed) {
            this.spec = spec;
            this.tiles = tiles;
            this.maxEvent = maxEvent;
            this.changed = changed;
        }

        /** Every row of {@code changes}; one older than {@code watermark} is dropped and counted. */
        void all(TableChanges changes, long watermark) {
            List<Feature> features = spec.features();
            long committed = changes.committedAtMs();
            long latestAllowed = committed <= 0 || committed > Long.MAX_VALUE - MAX_AHEAD_MS ? Long.MAX_VALUE
                    : committed + MAX_AHEAD_MS;
            while (changes.hasNext()) {
                Map<String, Object> row = changes.next();
                String entity = EntityKeys.of(row, spec.entityPaths());
                Long ts = millis(EntityKeys.extract(row, spec.timestampPath()));
                if (entity == null || ts == null) {
                    skipped++;
                    continue;
                }
                if (OnlineStore.keyTooLong(entity)) {
                    skipped++;
                    if (oversized++ == 0) {
                        firstOversized = entity;
                    }
                    continue;
                }
                if (ts > latestAllowed) {
                    skipped++;
                    ahead++;
                    greatestAhead = Math.max(greatestAhead, ts);
                    continue;
                }
                if (ts < watermark) {
                    late++;
                    continue;
                }
                read++;
                for (int f = 0; f < features.size(); f++) {
                    Feature feature = features.get(f);
                    TileKey key = new TileKey(entity, f, feature.window().tileStart(ts));
                    Aggregate a = tiles.get(key);
                    if (a == null) {
                        a = new Aggregate(feature.function());
                        tiles.put(key, a);
                    }
                    if (!a.dirty && changed != null) {
                        changed.add(key);
                    }
                    a.dirty = true;
                    Object value = feature.column() == null ? Boolean.TRUE : EntityKeys.extract(row, feature.column());
                    a.add(value instanceof String str && str.length() > 10_000 ? str.substring(0, 10_000) : value, ts,
                            feature.column() == null);
                }
                maxEvent = Math.max(maxEvent, ts);
            }
        }
    }

    /**
     * The snapshot's files by the least event time their statistics give (files without one first: they may hold
     * any time), then by path: the order a first round takes them in, the same in every attempt.
     */
    private static List<SnapshotFiles.File> inEventTimeOrder(FeatureViewSpec spec, List<SnapshotFiles.File> files) {
        List<SnapshotFiles.File> out = new ArrayList<>(files);
        out.sort(Comparator.comparingLong((SnapshotFiles.File f) -> minMillis(spec, f))
                .thenComparing(SnapshotFiles.File::logPath));
        return out;
    }

    /** Where the part of a first round starting at file {@code from} ends: {@link #chunkRecords} records or so. */
    private int chunkEnd(List<SnapshotFiles.File> files, int from) {
        long records = 0;
        int end = from;
        while (end < files.size() && (end == from || records < chunkRecords) && end - from < MAX_CHUNK_FILES) {
            long n = files.get(end).numRecords();
            records += n < 0 ? UNKNOWN_FILE_RECORDS : n;
            end++;
        }
        return end;
    }

    /** The least event time of a file by its statistics, {@link Long#MIN_VALUE} when they do not say. */
    static long minMillis(FeatureViewSpec spec, SnapshotFiles.File file) {
        String min = file.min();
        if (min == null) {
            return Long.MIN_VALUE;
        }
        try {
            if (spec.timestampIsLong()) {
                return Long.parseLong(min);
            }
            if (min.endsWith("Z") || min.matches(".*[+-][0-9]{2}:[0-9]{2}$")) {
                return java.time.OffsetDateTime.parse(min).toInstant().toEpochMilli();
            }
            return LocalDateTime.parse(min).toInstant(ZoneOffset.UTC).toEpochMilli();
        } catch (RuntimeException e) {
            return Long.MIN_VALUE; // statistics in a form not known here: as if there were none
        }
    }

    /** The in-memory twin of {@link FeatureStore#expireTiles}. */
    private static void expire(FeatureViewSpec spec, HeldTiles tiles, long watermark) {
        if (watermark == Long.MIN_VALUE) {
            return;
        }
        tiles.expire(expiryCuts(spec, watermark));
    }

    /**
     * Per feature, the greatest tile start no longer needed ({@link Long#MIN_VALUE}: none): no window that is not yet
     * final holds it (a rolling feature's: nor is its leaving still to be written, {@link FeatureWindow#retainedMs}).
     * Worked out once per round rather than for each of the tiles held.
     */
    private static long[] expiryCuts(FeatureViewSpec spec, long watermark) {
        long[] cut = new long[spec.features().size()];
        for (int f = 0; f < cut.length; f++) {
            long d = spec.features().get(f).window().retainedMs();
            cut[f] = watermark == Long.MIN_VALUE || watermark - d > watermark ? Long.MIN_VALUE : watermark - d;
        }
        return cut;
    }

    /** The tile is no longer needed ({@link #expiryCuts}). */
    private static boolean expired(long[] cut, TileKey k) {
        return cut[k.feature()] != Long.MIN_VALUE && k.start() <= cut[k.feature()];
    }

    static long minus(long t, long d) {
        return t == Long.MIN_VALUE ? Long.MIN_VALUE : t - d;
    }

    /** An event time for a log line: its instant when it has one, else the number. */
    private static String eventTimeText(long ms) {
        try {
            return Instant.ofEpochMilli(ms) + " (" + ms + " ms)";
        } catch (java.time.DateTimeException e) {
            return ms + " ms";
        }
    }

    /** Event time in epoch milliseconds: a timestamp, or an integer column of epoch milliseconds. */
    static Long millis(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Instant i) {
            return i.toEpochMilli();
        }
        if (v instanceof LocalDateTime t) {
            return t.toInstant(ZoneOffset.UTC).toEpochMilli();
        }
        if (v instanceof Number n) {
            return n.longValue();
        }
        throw new IllegalStateException("the timestamp column holds a " + v.getClass().getSimpleName());
    }
}
