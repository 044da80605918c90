package io.tributary.features;

import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A view's features per entity as of a time. As of now: from the online database, in one statement and so one snapshot
 * of it (the state's watermark, the entities' tiles and their newest final windows; {@link Now}). As of an earlier time: from the offline table's
 * final windows only, each window ended at or before that time, so no value is computed from a record after it.
 */
public final class FeatureLookup {
    private final FeatureStore store;
    private final Tables tables;

    public FeatureLookup(FeatureStore store, Tables tables) {
        this.store = store;
        this.tables = tables;
    }

    /** One key: its canonical entity text and, for a point-in-time lookup, the time (else null: now). */
    public record Key(String entity, Instant asOf) {}

    /** Each key's features by name (null for a feature with no window), or null for an entity with none. */
    public List<Map<String, Object>> lookup(FeatureViewSpec spec, List<Key> keys, Instant now) {
        List<Map<String, Object>> out = new ArrayList<>(keys.size());
        Set<String> online = new HashSet<>();
        Set<String> offline = new HashSet<>();
        for (Key k : keys) {
            (k.asOf() == null ? online : offline).add(k.entity());
        }
        Map<String, Map<String, Object>> current = online.isEmpty() ? Map.of() : now(spec, online, now.toEpochMilli());
        Map<String, List<Map<String, Object>>> history = offline.isEmpty() ? Map.of() : offlineRows(spec, offline);
        // A table written before rolling rows became changes only has one at every precision step.
        boolean everyStep = !offline.isEmpty() && OfflineFeatures.rollingEveryStep(tables, spec);
        for (Key k : keys) {
            out.add(k.asOf() == null ? current.get(k.entity())
                    : asOf(spec, history.getOrDefault(k.entity(), List.of()), k.asOf().toEpochMilli(), everyStep));
        }
        return out;
    }

    /** As of now over JDBC: the one statement of {@link FeatureStore#nowStatement}, as the API's reactive path. */
    private Map<String, Map<String, Object>> now(FeatureViewSpec spec, Set<String> entities, long now) {
        Now answer = new Now(spec, now);
        try (Connection c = store.connection()) {
            c.setAutoCommit(true);
            String sql = store.nowStatement(spec).replace("$1", "?").replace("$2", "?");
            try (java.sql.PreparedStatement s = c.prepareStatement(sql)) {
                s.setString(1, spec.id());
                java.sql.Array keys = c.createArrayOf("text", entities.toArray());
                s.setArray(2, keys);
                s.setArray(3, keys);
                try (java.sql.ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        answer.row(rs.getInt(1), rs.getString(2), rs.getInt(3), rs.getLong(4), rs.getLong(5),
                                rs.getBytes(6));
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("looking up features of " + spec.name() + " failed: " + e.getMessage(),
                    e);
        }
        return answer.features(entities);
    }

    /**
     * The features as of now from the rows of {@link FeatureStore#nowStatement}, whoever ran it (JDBC here, the API's
     * reactive client on its event loop): a tumbling or sliding feature is its newest window that ended at or before
     * now (combined from tiles while it is not final, else the stored final one), a rolling feature the window ending
     * at now rounded down to its precision.
     */
    public static final class Now {
        private final FeatureViewSpec spec;
        private final long now;
        private long watermark = Long.MIN_VALUE;
        /** Per entity, per feature, its tiles (no map by tile key: each lookup built one for every tile it read). */
        private final Map<String, List<Tile>[]> byEntity = new HashMap<>();
        private final Map<String, FeatureStore.Window[]> latest = new HashMap<>();

        public Now(FeatureViewSpec spec, long now) {
            this.spec = spec;
            this.now = now;
        }

        /** One row of the statement; a feature the definition does not have (any more) is passed over. */
        public void row(int kind, String entity, int feature, long start, long end, byte[] aggregate) {
            if (kind == 0) {
                watermark = start;
                return;
            }
            if (kind == 2 && feature == FeatureStore.TOGETHER) {
                FeatureStore.windowsOf(aggregate, (f, s, e, a) -> row(2, entity, f, s, e, a));
                return;
            }
            if (feature < 0 || feature >= spec.features().size()
                    || kind == 2 && spec.features().get(feature).window().kind() == FeatureWindow.Kind.ROLLING) {
                return; // a rolling feature's newest window, left by an earlier release: combined from tiles instead
            }
            Aggregate a = Aggregate.fromBytes(spec.features().get(feature).function(), aggregate);
            int n = spec.features().size();
            if (kind == 1) {
                @SuppressWarnings("unchecked")
                List<Tile>[] own = byEntity.computeIfAbsent(entity, e -> new List[n]);
                if (own[feature] == null) {
                    own[feature] = new ArrayList<>();
                }
                own[feature].add(new Tile(start, a));
            } else {
                // An entity's row of several features' newest windows and a row of one feature's, written by a later
                // round, may both hold one: the greater end is the newer.
                FeatureStore.Window[] own = latest.computeIfAbsent(entity, k -> new FeatureStore.Window[n]);
                if (own[feature] == null || own[feature].end() < end) {
                    own[feature] = new FeatureStore.Window(start, end, a);
                }
            }
        }

        /** Each entity's features by name (null for a feature with no window); an entity with none is left out. */
        public Map<String, Map<String, Object>> features(java.util.Collection<String> entities) {
            Map<String, Map<String, Object>> out = new HashMap<>();
            for (String entity : entities) {
                List<Tile>[] own = byEntity.get(entity);
                FeatureStore.Window[] finals = latest.get(entity);
                if (own == null && finals == null) {
                    continue;
                }
                Map<String, Object> features = new LinkedHashMap<>();
                for (int f = 0; f < spec.features().size(); f++) {
                    Aggregate a = current(spec.features().get(f), own == null || own[f] == null ? List.of() : own[f],
                            finals == null ? null : finals[f], watermark, now);
                    features.put(spec.features().get(f).name(), a == null ? null : a.value());
                }
                out.put(entity, features);
            }
            return out;
        }
    }

    /** One tile of a lookup's entity and feature. */
    private record Tile(long start, Aggregate aggregate) {}

    private static Aggregate current(Feature feature, List<Tile> own, FeatureStore.Window last, long watermark,
            long now) {
        FeatureWindow w = feature.window();
        if (w.kind() == FeatureWindow.Kind.ROLLING) {
            // Final or not, from the tiles: every tile of a window ending after the watermark less one precision step
            // is held (a tile goes once its start is at or before the watermark less duration and precision), and
            // now's step is past that unless the records' event times run ahead of this server's clock (then the
            // tiles already dropped are missing from it). No newest window is stored for it: one from an earlier
            // release is passed over (Now.row), as it is no longer kept up to date.
            long end = w.endAtOrBefore(now);
            return combine(feature, own, end - w.durationMs(), end);
        }
        long best = Long.MIN_VALUE;
        for (Tile t : own) {
            for (long start = w.firstStartHolding(t.start()); start <= t.start(); start += w.slideMs()) {
                long end = start + w.durationMs();
                if (end > watermark && end <= now && end > best) {
                    best = end;
                }
            }
        }
        if (best != Long.MIN_VALUE && (last == null || best > last.end())) {
            return combine(feature, own, best - w.durationMs(), best);
        }
        return last != null && last.end() <= now ? last.aggregate() : null;
    }

    private static Aggregate combine(Feature feature, List<Tile> own, long start, long end) {
        Aggregate sum = null;
        for (Tile t : own) {
            if (t.start() >= start && t.start() < end) {
                if (sum == null) {
                    sum = new Aggregate(feature.function());
                }
                sum.merge(t.aggregate());
            }
        }
        return sum;
    }

    /** The offline rows of some entities, read with Kernel's scan of the latest snapshot. */
    private Map<String, List<Map<String, Object>>> offlineRows(FeatureViewSpec spec, Set<String> entities) {
        Map<String, List<Map<String, Object>>> out = new HashMap<>();
        if (!tables.exists(spec.offlineLocation())) {
            return out;
        }
        List<List<String>> paths = spec.entityNames().stream().map(List::of).toList();
        try (TableRows rows = tables.read(spec.offlineLocation())) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                String entity = EntityKeys.of(row, paths);
                if (entity != null && entities.contains(entity)) {
                    out.computeIfAbsent(entity, e -> new ArrayList<>()).add(row);
                }
            }
        }
        return out;
    }

    /**
     * A tumbling or sliding feature: its newest row ended at or before t. A rolling one: its newest row of its shape
     * ended at or before t's precision step (its value changed there and held since), or, in a table of one row per
     * step, the row ending at that step exactly. A rolling row whose value is null is a window left empty.
     */
    private static Map<String, Object> asOf(FeatureViewSpec spec, List<Map<String, Object>> rows, long t,
            boolean everyStep) {
        Map<String, Object> features = new LinkedHashMap<>();
        boolean any = false;
        for (Feature feature : spec.features()) {
            FeatureWindow w = feature.window();
            boolean rolling = w.kind() == FeatureWindow.Kind.ROLLING;
            long cap = rolling ? w.endAtOrBefore(t) : t;
            long wanted = rolling && everyStep ? cap : Long.MIN_VALUE;
            long best = Long.MIN_VALUE;
            Object value = null;
            for (Map<String, Object> row : rows) {
                long start = ((Instant) row.get("window_start")).toEpochMilli();
                long end = ((Instant) row.get("window_end")).toEpochMilli();
                if (end - start != w.durationMs() || Math.floorMod(start, w.slideMs()) != 0 || end > cap) {
                    continue;
                }
                if (wanted != Long.MIN_VALUE ? end == wanted : end > best) {
                    best = end;
                    value = row.get(feature.name());
                }
            }
            if (best != Long.MIN_VALUE && (!rolling || value != null)) {
                any = true;
            }
            features.put(feature.name(), best == Long.MIN_VALUE ? null : value);
        }
        return any ? features : null;
    }
}
