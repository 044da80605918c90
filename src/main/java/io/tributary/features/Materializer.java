package io.tributary.features;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.TableChanges;
import io.tributary.delta.Tables;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

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
    private final Tables tables;
    private final FeatureStore store;
    private final OfflineFeatures offline;
    private final MaterializeHooks hooks;

    /** Source commits one round takes at most. */
    static final int MAX_COMMITS = 200;
    /** How long a round waits for another round's lock on the view, well below the connection's socket timeout. */
    static final long LOCK_WAIT_MS = 10_000;

    private record Pending(String viewId, long version, Map<TileKey, Aggregate> tiles) {}

    private Pending pending;

    public Materializer(Tables tables, FeatureStore store, MaterializeHooks hooks) {
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
                    store.cache(pending.viewId(), pending.version(), pending.tiles());
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

    private MaterializeResult round(Connection c, FeatureViewSpec spec) throws SQLException {
        FeatureState st = store.lockState(c, spec.id(), LOCK_WAIT_MS);
        if (st == null) {
            throw new FeatureViewGoneException("feature view " + spec.name() + " was deleted");
        }
        long latest = tables.open(spec.sourceLocation()).status().version();
        if (latest == st.version()) {
            return new MaterializeResult(st.version(), st.version(), 0, 0, 0, st.watermark());
        }
        boolean first = st.version() < 0;
        // The first round takes the snapshot whole; then commit by commit, at most MAX_COMMITS per round (a round is
        // one PostgreSQL transaction and one offline commit: catching up a long backlog goes in bounded steps).
        long upTo = first ? latest : Math.min(latest, st.version() + MAX_COMMITS);
        // The tiles this process kept after its own last round of the view, if that round is the one the state row
        // records; else (another process's round, a failed one, a restart) read them again.
        Map<TileKey, Aggregate> tiles = store.cached(spec.id(), st.version());
        if (tiles == null) {
            tiles = store.loadTiles(c, spec);
        }
        Map<TileKey, Aggregate> changed = new HashMap<>();
        Map<String, List<Object>> entityValues = new HashMap<>();
        long maxEvent = st.maxEventTime();
        long watermark = st.watermark();
        long read = 0;
        long late = 0;
        long skipped = 0;
        long committedAt = 0;
        List<Feature> features = spec.features();
        for (long v = first ? upTo : st.version() + 1; v <= upTo; v++) {
            try (TableChanges changes = tables.changesBetween(spec.sourceLocation(), first ? -1 : v - 1, v)) {
                committedAt = changes.committedAtMs();
                while (changes.hasNext()) {
                    Map<String, Object> row = changes.next();
                    String entity = EntityKeys.of(row, spec.entityPaths());
                    Long ts = millis(EntityKeys.extract(row, spec.timestampPath()));
                    if (entity == null || ts == null) {
                        skipped++;
                        continue;
                    }
                    // The watermark as the previous commit left it (Spark's rule per micro-batch, here per commit).
                    if (!first && ts < watermark) {
                        late++;
                        continue;
                    }
                    read++;
                    if (!entityValues.containsKey(entity)) {
                        List<Object> values = new ArrayList<>();
                        for (List<String> p : spec.entityPaths()) {
                            values.add(EntityKeys.extract(row, p));
                        }
                        entityValues.put(entity, values);
                    }
                    for (int f = 0; f < features.size(); f++) {
                        Feature feature = features.get(f);
                        TileKey key = new TileKey(entity, f, feature.window().tileStart(ts));
                        Aggregate a = changed.get(key);
                        if (a == null) {
                            a = tiles.get(key);
                            if (a == null) {
                                a = new Aggregate(feature.function());
                                tiles.put(key, a);
                            }
                            changed.put(key, a);
                        }
                        Object value = feature.column() == null ? Boolean.TRUE
                                : EntityKeys.extract(row, feature.column());
                        a.add(value instanceof String str && str.length() > 10_000 ? str.substring(0, 10_000)
                                : value, ts, feature.column() == null);
                    }
                    maxEvent = Math.max(maxEvent, ts);
                }
            }
            if (maxEvent != Long.MIN_VALUE) {
                watermark = Math.max(watermark, minus(maxEvent, spec.latenessMs()));
            }
        }
        DeltaTable table = offline.open(spec);
        OfflineFeatures.Progress progress = OfflineFeatures.progress(table);
        long from = Math.max(st.finalThrough(), progress.finalThrough());
        Map<TileKey, FeatureStore.Window> newest = new HashMap<>();
        List<GenericRecord> rows = finals(spec, tiles, entityValues, from, watermark, newest);
        if (progress.sourceVersion() < upTo) {
            OfflineFeatures.append(table, table.status().version(), OfflineFeatures.schema(spec), rows,
                    new OfflineFeatures.Progress(upTo, Math.max(watermark, progress.finalThrough())));
        }
        hooks.afterOfflineCommit(spec);
        store.writeTiles(c, spec, changed);
        store.writeLatest(c, spec, newest);
        store.expireTiles(c, spec, watermark);
        expire(spec, tiles, watermark);
        store.saveState(c, new FeatureState(spec.id(), upTo, maxEvent, watermark,
                Math.max(from, watermark), st.recordsRead() + read, st.lateDropped() + late, st.skipped() + skipped,
                Instant.ofEpochMilli(committedAt), null, FeatureState.ONLINE, null));
        pending = new Pending(spec.id(), upTo, tiles);
        return new MaterializeResult(st.version(), upTo, read, late, rows.size(), watermark);
    }

    /**
     * The windows with an end in {@code (from, watermark]} that hold a record, combined from their tiles, as offline
     * rows (features of one window shape share a row); {@code newest} gets each entity's and feature's newest.
     */
    private static List<GenericRecord> finals(FeatureViewSpec spec, Map<TileKey, Aggregate> tiles,
            Map<String, List<Object>> entityValues, long from, long watermark, Map<TileKey, FeatureStore.Window> newest) {
        if (watermark == Long.MIN_VALUE || watermark <= from) {
            return List.of();
        }
        // (entity, start, end) → feature values, in a stable order so a repeated round writes the same file.
        Map<String, TreeMap<long[], Object[]>> byEntity = new TreeMap<>();
        int n = spec.features().size();
        Map<TileKey, Boolean> done = new HashMap<>();
        for (TileKey tile : tiles.keySet()) {
            Feature feature = spec.features().get(tile.feature());
            FeatureWindow w = feature.window();
            // Only the windows holding this tile that end in (from, watermark]: start in (from - d, watermark - d].
            long first = w.firstStartHolding(tile.start());
            if (from != Long.MIN_VALUE) {
                first = Math.max(first, (Math.floorDiv(from - w.durationMs(), w.slideMs()) + 1) * w.slideMs());
            }
            long last = Math.min(tile.start(), watermark - w.durationMs());
            for (long start = first; start <= last; start += w.slideMs()) {
                long end = start + w.durationMs();
                TileKey windowKey = new TileKey(tile.entity(), tile.feature(), start);
                if (done.put(windowKey, Boolean.TRUE) != null) {
                    continue;
                }
                Aggregate sum = new Aggregate(feature.function());
                for (long t = start; t < end; t += w.tileMs()) {
                    Aggregate a = tiles.get(new TileKey(tile.entity(), tile.feature(), t));
                    if (a != null) {
                        sum.merge(a);
                    }
                }
                Object[] values = byEntity.computeIfAbsent(tile.entity(), e -> new TreeMap<>(Materializer::compare))
                        .computeIfAbsent(new long[] {start, end}, k -> new Object[n]);
                values[tile.feature()] = sum.value();
                TileKey latestKey = new TileKey(tile.entity(), tile.feature(), 0);
                FeatureStore.Window held = newest.get(latestKey);
                if (held == null || held.end() < end) {
                    newest.put(latestKey, new FeatureStore.Window(start, end, sum));
                }
            }
        }
        Schema schema = OfflineFeatures.schema(spec);
        List<GenericRecord> out = new ArrayList<>();
        for (Map.Entry<String, TreeMap<long[], Object[]>> e : byEntity.entrySet()) {
            List<Object> entity = entityValues.containsKey(e.getKey()) ? entityValues.get(e.getKey())
                    : EntityKeys.values(e.getKey());
            for (Map.Entry<long[], Object[]> w : e.getValue().entrySet()) {
                out.add(OfflineFeatures.row(schema, spec, entity, w.getKey()[0], w.getKey()[1], w.getValue()));
            }
        }
        return out;
    }

    /** The in-memory twin of {@link FeatureStore#expireTiles}. */
    private static void expire(FeatureViewSpec spec, Map<TileKey, Aggregate> tiles, long watermark) {
        if (watermark == Long.MIN_VALUE) {
            return;
        }
        tiles.keySet().removeIf(k -> k.start() <= watermark - spec.features().get(k.feature()).window().durationMs());
    }

    private static int compare(long[] a, long[] b) {
        int c = Long.compare(a[1], b[1]);
        return c != 0 ? c : Long.compare(a[0], b[0]);
    }

    static long minus(long t, long d) {
        return t == Long.MIN_VALUE ? Long.MIN_VALUE : t - d;
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
