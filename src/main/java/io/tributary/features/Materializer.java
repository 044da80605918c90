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
                MaterializeResult r = round(c, spec);
                c.commit();
                return r;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("materializing " + spec.name() + " into PostgreSQL failed: "
                    + e.getMessage(), e);
        }
    }

    private MaterializeResult round(Connection c, FeatureViewSpec spec) throws SQLException {
        FeatureState st = store.state(c, spec.id(), true);
        if (st == null) {
            throw new FeatureViewGoneException("feature view " + spec.name() + " was deleted");
        }
        try (TableChanges changes = tables.changesSince(spec.sourceLocation(), st.version())) {
            if (changes.version() == st.version()) {
                return new MaterializeResult(st.version(), st.version(), 0, 0, 0, st.watermark());
            }
            boolean first = st.version() < 0;
            Map<TileKey, Aggregate> tiles = store.loadTiles(c, spec);
            Map<TileKey, Aggregate> changed = new HashMap<>();
            Map<String, List<Object>> entityValues = new HashMap<>();
            long maxEvent = st.maxEventTime();
            long watermark = st.watermark();
            long read = 0;
            long late = 0;
            long skipped = 0;
            List<Feature> features = spec.features();
            while (changes.hasNext()) {
                Map<String, Object> row = changes.next();
                String entity = EntityKeys.of(row, spec.entityPaths());
                Long ts = millis(EntityKeys.extract(row, spec.timestampPath()));
                if (entity == null || ts == null) {
                    skipped++;
                    continue;
                }
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
                    Object v = feature.column() == null ? Boolean.TRUE : EntityKeys.extract(row, feature.column());
                    a.add(v instanceof String s && s.length() > 10_000 ? s.substring(0, 10_000) : v, ts,
                            feature.column() == null);
                }
                if (ts > maxEvent) {
                    maxEvent = ts;
                    if (!first) {
                        watermark = Math.max(watermark, minus(maxEvent, spec.latenessMs()));
                    }
                }
            }
            if (first && maxEvent != Long.MIN_VALUE) {
                watermark = minus(maxEvent, spec.latenessMs());
            }

            DeltaTable table = offline.open(spec);
            OfflineFeatures.Progress progress = OfflineFeatures.progress(table);
            long from = Math.max(st.finalThrough(), progress.finalThrough());
            Map<TileKey, FeatureStore.Window> newest = new HashMap<>();
            List<GenericRecord> rows = finals(spec, tiles, entityValues, from, watermark, newest);
            if (progress.sourceVersion() < changes.version()) {
                OfflineFeatures.append(table, table.status().version(), OfflineFeatures.schema(spec), rows,
                        new OfflineFeatures.Progress(changes.version(), Math.max(watermark, progress.finalThrough())));
            }
            hooks.afterOfflineCommit(spec);
            store.writeTiles(c, spec, changed);
            store.writeLatest(c, spec, newest);
            store.expireTiles(c, spec, watermark);
            store.saveState(c, new FeatureState(spec.id(), changes.version(), maxEvent, watermark,
                    Math.max(from, watermark), st.recordsRead() + read, st.lateDropped() + late, st.skipped() + skipped,
                    Instant.ofEpochMilli(changes.committedAtMs()), null, FeatureState.ONLINE, null));
            return new MaterializeResult(st.version(), changes.version(), read, late, rows.size(), watermark);
        }
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
            for (long start = w.firstStartHolding(tile.start()); start <= tile.start(); start += w.slideMs()) {
                long end = start + w.durationMs();
                if (end <= from || end > watermark) {
                    continue;
                }
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
