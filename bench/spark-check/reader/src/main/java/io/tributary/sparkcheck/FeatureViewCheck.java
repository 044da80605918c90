package io.tributary.sparkcheck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Second half of bench/features-spark (issue #16): computes every feature of the view with Spark SQL over the ingestion
 * table alone and compares it, window by window and value by value, with the offline feature table Tributary wrote.
 *
 * <ul>
 *   <li>tumbling and sliding features: {@code GROUP BY entity, window(ts, duration, slide)};
 *   <li>rolling features: a range aggregation, the records of the entity with {@code E − d ≤ ts < E} joined to every
 *       end E (a multiple of the precision) that has one, so not through {@code window} at all; the offline table has
 *       a row only where the value changes (SPEC 10.3), so each of Spark's windows is compared with the entity's
 *       newest offline row of the shape ending at or before E (an as-of join), and an offline row Spark has no window
 *       for must hold nulls only (the window left empty);
 *   <li>the windows Spark must find in the offline table: those ending at or before its own watermark, the greatest
 *       event time minus the allowed lateness;
 *   <li>{@code first} / {@code last}: the value of the smallest / greatest (event time, value), nulls left out
 *       ({@code min}/{@code max} of a struct); Spark's own {@code first}/{@code last} depend on the reading order;
 *   <li>{@code approx_count_distinct}: compared with Spark's exact {@code count(DISTINCT)}, which must be equal up to
 *       256 distinct values (Tributary's sketch is exact there) and within 4 standard errors (6.5 %) above; Spark's
 *       own HLL++ ({@code approx_count_distinct}, 5 % rsd) is printed beside it, not required to agree.
 * </ul>
 *
 * Doubles are equal when bit for bit equal or within 1e-9 · max(1, |expected|) (sums in another order); the counts of
 * each kind are printed. Exits 1 on any difference: a window on one side only, or a value that differs.
 */
public final class FeatureViewCheck {
    private static final int EXACT_DISTINCT = 256;
    private static final double HLL_STANDARD_ERROR = 1.04 / Math.sqrt(4096);
    private static final double DOUBLE_TOLERANCE = 1e-9;

    private FeatureViewCheck() {}

    record FeatureDef(String name, String function, String column, String kind, long durationMs, long slideMs) {}

    record Shape(String kind, long durationMs, long slideMs) {}

    public static void main(String[] args) throws Exception {
        JsonNode view = new ObjectMapper().readTree(new File(args[0], "view.json"));
        SparkSession spark = SparkSession.builder()
                .master("local[2]")
                .appName("tributary-features-spark-check")
                .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.shuffle.partitions", "4")
                .config("spark.ui.enabled", "false")
                .getOrCreate();
        boolean failed;
        try {
            failed = check(spark, view);
        } finally {
            spark.stop();
        }
        System.exit(failed ? 1 : 0);
    }

    private static boolean check(SparkSession spark, JsonNode view) {
        List<String> entityPaths = new ArrayList<>();
        view.get("entity_columns").forEach(n -> entityPaths.add(n.asText()));
        List<String> entities = new ArrayList<>();
        view.get("entity_names").forEach(n -> entities.add(n.asText()));
        String ts = view.get("timestamp_column").asText();
        long lateness = view.get("allowed_lateness_ms").asLong();

        StringBuilder src = new StringBuilder("SELECT *");
        StringBuilder notNull = new StringBuilder();
        for (int i = 0; i < entities.size(); i++) {
            src.append(", CAST(").append(entityPaths.get(i)).append(" AS STRING) AS ").append(entities.get(i));
            notNull.append(entityPaths.get(i)).append(" IS NOT NULL AND ");
        }
        src.append(", ").append(ts).append(" AS __ts, unix_millis(").append(ts).append(") AS __ts_ms FROM delta.`")
                .append(view.get("table").asText()).append("` WHERE ").append(notNull).append(ts)
                .append(" IS NOT NULL");
        spark.sql(src.toString()).createOrReplaceTempView("src");
        spark.read().format("delta").load(view.get("offline_table").asText()).createOrReplaceTempView("offline");
        StructType offlineSchema = spark.table("offline").schema();

        long maxTs = spark.sql("SELECT max(__ts_ms) FROM src").first().getLong(0);
        long watermark = maxTs - lateness;
        long tributaryWatermark = view.get("tributary_watermark_ms").asLong();
        System.out.printf("features-spark-check: %d source rows with an entity and a time; watermark %d (Tributary's "
                + "%d)%n", spark.table("src").count(), watermark, tributaryWatermark);
        boolean failed = watermark != tributaryWatermark;
        if (failed) {
            System.out.println("DIFFERENCE: the watermarks differ");
        }

        Map<Shape, List<FeatureDef>> shapes = new LinkedHashMap<>();
        for (JsonNode f : view.get("features")) {
            FeatureDef d = new FeatureDef(f.get("name").asText(), f.get("function").asText(),
                    f.get("column").isNull() ? null : f.get("column").asText(), f.get("kind").asText(),
                    f.get("duration_ms").asLong(), f.get("slide_ms").asLong());
            shapes.computeIfAbsent(new Shape(d.kind(), d.durationMs(), d.slideMs()), k -> new ArrayList<>()).add(d);
        }

        String keys = String.join(", ", entities);
        Set<String> expectedWindows = new HashSet<>();
        long values = 0;
        for (Map.Entry<Shape, List<FeatureDef>> e : shapes.entrySet()) {
            Shape shape = e.getKey();
            List<FeatureDef> features = e.getValue();
            boolean rolling = shape.kind().equals("rolling");
            String p = rolling ? "s." : "";
            List<String> aggs = new ArrayList<>();
            for (FeatureDef f : features) {
                boolean numeric = offlineSchema.apply(f.name()).dataType().equals(DataTypes.DoubleType);
                aggs.addAll(aggregates(f, p, numeric));
            }
            String sql;
            long d = shape.durationMs();
            long s = shape.slideMs();
            if (rolling) {
                StringBuilder on = new StringBuilder();
                for (String k : entities) {
                    on.append("e.").append(k).append(" = s.").append(k).append(" AND ");
                }
                String eKeys = entities.stream().map(k -> "e." + k).reduce((a, b) -> a + ", " + b).orElseThrow();
                sql = "WITH ends AS (SELECT DISTINCT " + keys + ", explode(sequence(floor(__ts_ms / " + s + ") * " + s
                        + " + " + s + ", floor(__ts_ms / " + s + ") * " + s + " + " + d + ", " + s + ")) AS __end "
                        + "FROM src) SELECT " + eKeys + ", e.__end - " + d + " AS __ws, e.__end AS __we, "
                        + String.join(", ", aggs) + " FROM ends e JOIN src s ON " + on + "s.__ts_ms >= e.__end - " + d
                        + " AND s.__ts_ms < e.__end WHERE e.__end <= " + watermark + " GROUP BY " + eKeys + ", e.__end";
            } else {
                String window = shape.kind().equals("tumbling") ? "window(__ts, '" + d + " milliseconds')"
                        : "window(__ts, '" + d + " milliseconds', '" + s + " milliseconds')";
                sql = "SELECT " + keys + ", unix_millis(__w.start) AS __ws, unix_millis(__w.end) AS __we, "
                        + String.join(", ", aggs) + " FROM (SELECT *, " + window + " AS __w FROM src) GROUP BY "
                        + keys + ", __w HAVING unix_millis(__w.end) <= " + watermark;
            }
            List<Row> expected = spark.sql(sql).collectAsList();
            List<String> cols = features.stream().map(FeatureDef::name).toList();
            List<Row> actual = spark.sql("SELECT " + entities.stream().map(k -> "CAST(" + k + " AS STRING) AS " + k)
                    .reduce((a, b) -> a + ", " + b).orElseThrow() + ", unix_millis(window_start) AS __ws, "
                    + "unix_millis(window_end) AS __we, " + String.join(", ", cols) + " FROM offline WHERE "
                    + "unix_millis(window_end) - unix_millis(window_start) = " + d + " AND "
                    + "pmod(unix_millis(window_start), " + s + ") = 0").collectAsList();
            values += compareShape(shape, features, entities.size(), expected, actual, expectedWindows);
            failed |= !RESULT.ok;
        }
        // Every offline row must be one of the windows Spark expects (of some shape).
        long extra = 0;
        for (Row r : spark.sql("SELECT " + entities.stream().map(k -> "CAST(" + k + " AS STRING)")
                .reduce((a, b) -> a + ", " + b).orElseThrow() + ", unix_millis(window_start), unix_millis(window_end)"
                + " FROM offline").collectAsList()) {
            if (!expectedWindows.contains(key(r, entities.size() + 2))) {
                if (extra++ < 5) {
                    System.out.println("DIFFERENCE: offline row of no expected window: " + r);
                }
            }
        }
        failed |= extra > 0;
        System.out.printf("features-spark-check: %s — %d features in %d window shapes, %d windows, %d values "
                + "compared%n", failed ? "DIFFERENCES FOUND" : "every value matches Spark SQL",
                shapes.values().stream().mapToInt(List::size).sum(), shapes.size(), expectedWindows.size(), values);
        return failed;
    }

    /** The Spark SQL aggregates of one feature: its value, and for a distinct count the exact and HLL++ counts. */
    private static List<String> aggregates(FeatureDef f, String p, boolean numeric) {
        String c = f.column() == null ? null : p + f.column();
        String t = p + "__ts_ms";
        String v = c == null ? null : numeric ? "CAST(" + c + " AS DOUBLE)" : "CAST(" + c + " AS STRING)";
        String n = f.name();
        return switch (f.function()) {
            case "count" -> List.of((c == null ? "count(1)" : "count(" + c + ")") + " AS " + n);
            case "sum" -> List.of("sum(" + v + ") AS " + n);
            case "avg" -> List.of("avg(" + v + ") AS " + n);
            case "min" -> List.of("min(" + v + ") AS " + n);
            case "max" -> List.of("max(" + v + ") AS " + n);
            case "stddev" -> List.of("stddev_samp(" + v + ") AS " + n);
            case "first" -> List.of("min(CASE WHEN " + c + " IS NOT NULL THEN named_struct('t', " + t + ", 'v', " + v
                    + ") END).v AS " + n);
            case "last" -> List.of("max(CASE WHEN " + c + " IS NOT NULL THEN named_struct('t', " + t + ", 'v', " + v
                    + ") END).v AS " + n);
            case "approx_count_distinct" -> List.of("count(DISTINCT " + c + ") AS " + n,
                    "approx_count_distinct(" + c + ") AS " + n + "__spark_hll");
            default -> throw new IllegalArgumentException("no Spark SQL form for " + f.function());
        };
    }

    private static final class Result {
        boolean ok;
    }

    private static final Result RESULT = new Result();

    /** Compares one window shape; prints a line per feature and the first differences. Returns values compared. */
    private static long compareShape(Shape shape, List<FeatureDef> features, int nKeys, List<Row> expected,
            List<Row> actual, Set<String> expectedWindows) {
        RESULT.ok = true;
        Map<String, Row> byKey = new HashMap<>();
        for (Row r : actual) {
            if (byKey.put(key(r, nKeys + 2), r) != null) {
                RESULT.ok = false;
                System.out.println("DIFFERENCE: " + shape + ": the offline table holds the window twice: " + r);
            }
        }
        // A rolling shape: the entity's rows by end, for the as-of join.
        boolean rolling = shape.kind().equals("rolling");
        Map<String, java.util.TreeMap<Long, Row>> asOf = new HashMap<>();
        if (rolling) {
            for (Row r : actual) {
                asOf.computeIfAbsent(key(r, nKeys), x -> new java.util.TreeMap<>()).put(r.getLong(nKeys + 1), r);
            }
        }
        int missing = 0;
        Set<String> seen = new HashSet<>();
        long[] exact = new long[features.size()];
        long[] close = new long[features.size()];
        long[] hll = new long[features.size()];
        long[] sparkHllAgrees = new long[features.size()];
        long[] sparkHllSmall = new long[features.size()];
        double[] worstHll = new double[features.size()];
        int differences = 0;
        long values = 0;
        for (Row e : expected) {
            String k = key(e, nKeys + 2);
            expectedWindows.add(k);
            seen.add(k);
            Row a = byKey.get(k);
            if (rolling) {
                java.util.TreeMap<Long, Row> rows = asOf.get(key(e, nKeys));
                Map.Entry<Long, Row> at = rows == null ? null : rows.floorEntry(e.getLong(nKeys + 1));
                a = at == null ? null : at.getValue();
            }
            if (a == null) {
                if (missing++ < 5) {
                    System.out.println("DIFFERENCE: " + shape + ": window not in the offline table: " + e);
                }
                continue;
            }
            int ei = nKeys + 2;
            for (int f = 0; f < features.size(); f++) {
                FeatureDef def = features.get(f);
                Object want = e.get(ei);
                Object got = a.get(nKeys + 2 + f);
                values++;
                String verdict;
                if (def.function().equals("approx_count_distinct")) {
                    long w = ((Number) want).longValue();
                    long sparkHll = ((Number) e.get(ei + 1)).longValue();
                    ei += 2;
                    long g = got == null ? -1 : ((Number) got).longValue();
                    if (w <= EXACT_DISTINCT) {
                        sparkHllSmall[f]++;
                        if (sparkHll == w) {
                            sparkHllAgrees[f]++;
                        }
                        verdict = g == w ? "exact" : null;
                    } else {
                        double rel = Math.abs(g - w) / (double) w;
                        worstHll[f] = Math.max(worstHll[f], rel);
                        verdict = rel <= 4 * HLL_STANDARD_ERROR ? "hll" : null;
                    }
                } else {
                    ei++;
                    verdict = compare(want, got);
                }
                if (verdict == null) {
                    if (differences++ < 10) {
                        System.out.printf("DIFFERENCE: %s at %s: Spark %s, Tributary %s%n", def.name(), k, want, got);
                    }
                } else if (verdict.equals("exact")) {
                    exact[f]++;
                } else if (verdict.equals("close")) {
                    close[f]++;
                } else {
                    hll[f]++;
                }
            }
        }
        int extra = 0;
        int emptied = 0;
        for (Map.Entry<String, Row> k : byKey.entrySet()) {
            if (seen.contains(k.getKey())) {
                continue;
            }
            if (rolling && allNull(k.getValue(), nKeys + 2, features.size())) {
                emptied++; // the window left empty: Spark has no window there, and the row says so
                expectedWindows.add(k.getKey());
                continue;
            }
            if (extra++ < 5) {
                System.out.println("DIFFERENCE: " + shape + ": offline window Spark does not have: " + k.getValue());
            }
        }
        if (rolling) {
            System.out.printf("  %s: %d offline rows (changes only) for Spark's %d windows, %d of them where the "
                    + "window is left empty%n", shape, actual.size(), expected.size(), emptied);
        }
        for (int f = 0; f < features.size(); f++) {
            FeatureDef def = features.get(f);
            StringBuilder line = new StringBuilder(String.format("  %-16s %-22s %-8s %d windows: %d equal",
                    def.name(), def.function() + (def.column() == null ? "(*)" : "(" + def.column() + ")"),
                    def.kind(), expected.size(), exact[f]));
            if (close[f] > 0) {
                line.append(String.format(", %d within %.0e (summation order)", close[f], DOUBLE_TOLERANCE));
            }
            if (def.function().equals("approx_count_distinct")) {
                line.append(String.format(" (exact: ≤ %d distinct); %d above, within %.1f %% of the exact count "
                        + "(worst %.2f %%); Spark's HLL++ equals the exact count on %d of %d small windows",
                        EXACT_DISTINCT, hll[f], 400 * HLL_STANDARD_ERROR, 100 * worstHll[f], sparkHllAgrees[f],
                        sparkHllSmall[f]));
            }
            System.out.println(line);
        }
        if (missing > 0 || extra > 0 || differences > 0) {
            RESULT.ok = false;
            System.out.printf("DIFFERENCE: %s: %d windows missing offline, %d extra, %d values differ%n", shape,
                    missing, extra, differences);
        }
        return values;
    }

    /** "exact", "close" (doubles within the tolerance) or null (a difference). */
    private static String compare(Object want, Object got) {
        if (want == null || got == null) {
            return want == null && got == null ? "exact" : null;
        }
        if (want instanceof Double w && got instanceof Double g) {
            if (Double.doubleToLongBits(w) == Double.doubleToLongBits(g)) {
                return "exact";
            }
            return Math.abs(w - g) <= DOUBLE_TOLERANCE * Math.max(1, Math.abs(w)) ? "close" : null;
        }
        if (want instanceof Number w && got instanceof Number g && !(want instanceof Double)
                && !(got instanceof Double)) {
            return w.longValue() == g.longValue() ? "exact" : null;
        }
        return want.equals(got) ? "exact" : null;
    }

    private static boolean allNull(Row r, int from, int n) {
        for (int i = from; i < from + n; i++) {
            if (!r.isNullAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static String key(Row r, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : "|").append(r.get(i) == null ? "\u0000" : r.get(i).toString());
        }
        return b.toString();
    }
}
