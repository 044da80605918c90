package io.tributary.features;

import io.tributary.delta.LeafColumn;
import java.util.List;

/**
 * Not a test: the garbage and CPU of one as-of-now lookup's combine ({@link FeatureLookup.Now}) for one entity with
 * about the tiles of bench/features' view (3 features, 52 tiles, 3 newest windows), on one thread, 200k times, three
 * rounds: a figure a loaded machine does not move, where the bench's latencies are. Run from the test classpath, e.g.
 * {@code java -cp target/test-classes:target/classes:<runtime jars> io.tributary.features.LookupCost}.
 */
public class LookupCost {
    public static void main(String[] a) {
        List<LeafColumn> cols = List.of(new LeafColumn(List.of("value", "user_id"), "string", true),
                new LeafColumn(List.of("value", "amount"), "double", true),
                new LeafColumn(List.of("value", "event_time"), "bigint", true));
        FeatureViewSpec spec = FeatureViewCompiler.compile("id", "c.s.v", "/src", "/off", "fv_x",
                new FeatureViewDefinition(List.of("value.user_id"), "value.event_time", "5s", List.of(
                        new FeatureViewDefinition.FeatureDefinition("n_1s", "count", null,
                                new FeatureViewDefinition.WindowDefinition(new FeatureViewDefinition.Span("1s", null, null), null, null)),
                        new FeatureViewDefinition.FeatureDefinition("sum_1m", "sum", "value.amount",
                                new FeatureViewDefinition.WindowDefinition(null, new FeatureViewDefinition.Span("1m", "10s", null), null)),
                        new FeatureViewDefinition.FeatureDefinition("avg_5m", "avg", "value.amount",
                                new FeatureViewDefinition.WindowDefinition(null, null, new FeatureViewDefinition.Span("5m", null, null))))),
                cols);
        long now = 1_000_000_000L;
        long wm = now - 5000;
        // rows: state, 5 tiles of n_1s, 7 of sum_1m, 40 of avg_5m, 3 latest
        Object[][] rows = new Object[56][];
        int i = 0;
        rows[i++] = new Object[] {0, null, 0, wm, 0L, null};
        for (int t = 0; t < 5; t++) rows[i++] = new Object[] {1, "[\"k1\"]", 0, now - 5000 + t * 1000L, 0L, tile(FeatureFunction.COUNT, 3)};
        for (int t = 0; t < 7; t++) rows[i++] = new Object[] {1, "[\"k1\"]", 1, now - 70_000 + t * 10_000L, 0L, tile(FeatureFunction.SUM, 3)};
        for (int t = 0; t < 40; t++) rows[i++] = new Object[] {1, "[\"k1\"]", 2, now - 300_000 + t * 5_000L, 0L, tile(FeatureFunction.AVG, 2)};
        for (int f = 0; f < 3; f++) rows[i++] = new Object[] {2, "[\"k1\"]", f, now - 80_000, now - 20_000, tile(FeatureFunction.values()[f == 0 ? 0 : 1], 4)};
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int round = 0; round < 3; round++) {
            int n = 200_000;
            long b0 = mx.getCurrentThreadAllocatedBytes(), c0 = mx.getCurrentThreadCpuTime();
            for (int k = 0; k < n; k++) {
                FeatureLookup.Now ans = new FeatureLookup.Now(spec, now);
                for (Object[] r : rows) {
                    ans.row((Integer) r[0], (String) r[1], (Integer) r[2], (Long) r[3], (Long) r[4], (byte[]) r[5]);
                }
                sink += ans.features(List.of("[\"k1\"]")).size();
            }
            System.out.printf("round %d: %.0f bytes and %.2f us CPU per lookup combine (%d)%n", round,
                    (mx.getCurrentThreadAllocatedBytes() - b0) / (double) n, (mx.getCurrentThreadCpuTime() - c0) / 1e3 / n, sink);
        }
    }

    static byte[] tile(FeatureFunction f, int n) {
        Aggregate a = new Aggregate(f);
        for (int i = 0; i < n; i++) a.add(1.5 * i, 1000L + i, f == FeatureFunction.COUNT);
        return a.toBytes();
    }
}
