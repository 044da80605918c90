package io.tributary.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.delta.LeafColumn;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The core's pieces on their own: definitions, window arithmetic, aggregates merged in any order, the sketch. */
class FeatureCoreTest {
    static final List<LeafColumn> COLUMNS = List.of(
            new LeafColumn(List.of("value", "user_id"), "string", true),
            new LeafColumn(List.of("value", "amount"), "double", true),
            new LeafColumn(List.of("value", "flag"), "boolean", true),
            new LeafColumn(List.of("value", "event_time"), "bigint", true),
            new LeafColumn(List.of("stream_record_timestamp"), "timestamp", false));

    static FeatureViewDefinition.FeatureDefinition feature(String name, String fn, String column,
            FeatureViewDefinition.WindowDefinition w) {
        return new FeatureViewDefinition.FeatureDefinition(name, fn, column, w);
    }

    static FeatureViewDefinition.WindowDefinition tumbling(String d) {
        return new FeatureViewDefinition.WindowDefinition(new FeatureViewDefinition.Span(d, null, null), null, null);
    }

    static FeatureViewSpec compile(List<String> entities, String ts, String lateness,
            FeatureViewDefinition.FeatureDefinition... features) {
        return FeatureViewCompiler.compile("id", "c.s.v", "/src", "/off", "fv_x",
                new FeatureViewDefinition(entities, ts, lateness, List.of(features)), COLUMNS);
    }

    /**
     * A rolling feature as of now where its window is final (the watermark at or past now's precision step) is combined
     * from its tiles, as where it is not: every tile of a window ending after the watermark less one precision step is
     * held. No newest window is stored for it; one an earlier release stored (no longer kept up to date) is passed
     * over, and an entity whose tiles leave its window holds nothing there (null).
     */
    @Test
    void aFinalRollingValueAsOfNowIsCombinedFromItsTiles() {
        FeatureViewSpec spec = compile(List.of("value.user_id"), null, "0s", feature("n", "count", null,
                new FeatureViewDefinition.WindowDefinition(null, null,
                        new FeatureViewDefinition.Span("10m", null, "10s"))));
        long now = 1_800_000_000_000L;
        Aggregate one = new Aggregate(FeatureFunction.COUNT);
        one.add(null, now - 500_000, true);
        Aggregate seven = new Aggregate(FeatureFunction.COUNT);
        for (int i = 0; i < 7; i++) {
            seven.add(null, now - 400_000, true);
        }
        FeatureLookup.Now answer = new FeatureLookup.Now(spec, now);
        answer.row(0, null, 0, now, 0, null); // the watermark: now
        // u1: tiles at 500 s and 400 s ago; u2: a tile at 605 s ago, which left the window 5 s ago, and a stale newest
        // window of an earlier release saying 7.
        answer.row(1, "[\"u1\"]", 0, now - 500_000, 0, one.toBytes());
        answer.row(1, "[\"u1\"]", 0, now - 400_000, 0, one.toBytes());
        answer.row(1, "[\"u2\"]", 0, now - 605_000, 0, one.toBytes());
        answer.row(2, "[\"u2\"]", 0, now - 30_000 - 600_000, now - 30_000, seven.toBytes());
        var features = answer.features(List.of("[\"u1\"]", "[\"u2\"]"));
        assertThat(features.get("[\"u1\"]")).containsEntry("n", 2L);
        assertThat(features.get("[\"u2\"]")).containsEntry("n", null);
    }

    @Test
    void definitionsCompileWithDefaultsAndEveryMistakeNamesItsField() {
        FeatureViewSpec spec = compile(List.of("value.user_id"), null, null,
                feature("n", "count", null, tumbling("10m")),
                feature("r", "avg", "value.amount", new FeatureViewDefinition.WindowDefinition(null, null,
                        new FeatureViewDefinition.Span("30m", null, null))));
        assertThat(spec.entityNames()).containsExactly("value_user_id");
        assertThat(spec.timestampPath()).containsExactly("stream_record_timestamp");
        assertThat(spec.timestampIsLong()).isFalse();
        assertThat(spec.features().get(1).window().slideMs()).isEqualTo(30_000);

        assertField(() -> compile(List.of(), null, null, feature("n", "count", null, tumbling("1m"))),
                "entity_columns");
        assertField(() -> compile(List.of("value.amount"), null, null, feature("n", "count", null, tumbling("1m"))),
                "entity_columns[0]");
        assertField(() -> compile(List.of("value.user_id"), "value.flag", null,
                feature("n", "count", null, tumbling("1m"))), "timestamp_column");
        assertField(() -> compile(List.of("value.user_id"), null, "-1m", feature("n", "count", null, tumbling("1m"))),
                "allowed_lateness");
        assertField(() -> compile(List.of("value.user_id"), null, null, feature("N", "count", null, tumbling("1m"))),
                "features[0].name");
        assertField(() -> compile(List.of("value.user_id"), null, null, feature("n", "sum", null, tumbling("1m"))),
                "features[0].column");
        assertField(() -> compile(List.of("value.user_id"), null, null,
                feature("n", "sum", "value.flag", tumbling("1m"))), "features[0].column");
        assertField(() -> compile(List.of("value.user_id"), null, null,
                feature("n", "count", null, tumbling("0s"))), "features[0].window.tumbling.duration");
        assertField(() -> compile(List.of("value.user_id"), null, null, feature("n", "count", null,
                new FeatureViewDefinition.WindowDefinition(new FeatureViewDefinition.Span("1m", null, null),
                        new FeatureViewDefinition.Span("1m", "1m", null), null))), "features[0].window");
        assertField(() -> compile(List.of("value.user_id"), null, null, feature("n", "count", null,
                new FeatureViewDefinition.WindowDefinition(null, new FeatureViewDefinition.Span("1d", "1s", null),
                        null))), "features[0].window.sliding");
        assertField(() -> compile(List.of("value.user_id"), null, null, feature("n", "count", null,
                new FeatureViewDefinition.WindowDefinition(null, null,
                        new FeatureViewDefinition.Span("30m", null, "7m")))), "features[0].window.rolling.precision");
        assertField(() -> compile(List.of("value.user_id"), null, null, feature("n", "count", null, tumbling("1m")),
                feature("n", "count", null, tumbling("2m"))), "features[1].name");
    }

    private static void assertField(Runnable r, String field) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(FeatureDefinitionException.class,
                e -> assertThat(e.field()).isEqualTo(field));
    }

    @Test
    void windowArithmeticMatchesTheEpochAlignedDefinition() {
        FeatureWindow sliding = new FeatureWindow(FeatureWindow.Kind.SLIDING, 60, 15);
        assertThat(sliding.tileMs()).isEqualTo(15);
        assertThat(sliding.firstStartHolding(100)).isEqualTo(45); // [45,105) … [90,150) hold 100
        assertThat(sliding.endAtOrBefore(100)).isEqualTo(90);
        assertThat(sliding.firstStartHolding(-1)).isEqualTo(-60);
        assertThat(sliding.tileStart(-1)).isEqualTo(-15);
    }

    @Test
    void aggregatesMergedInAnyOrderEqualOneAggregateOfEveryValue() {
        Random random = new Random(3);
        for (FeatureFunction fn : FeatureFunction.values()) {
            List<double[]> values = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                values.add(new double[] {random.nextInt(1000) / 4.0, random.nextInt(50)});
            }
            Aggregate whole = new Aggregate(fn);
            values.forEach(v -> whole.add(v[0], (long) v[1], false));
            for (int round = 0; round < 3; round++) {
                Collections.shuffle(values, random);
                List<Aggregate> parts = new ArrayList<>();
                for (int p = 0; p < 7; p++) {
                    parts.add(new Aggregate(fn));
                }
                for (int i = 0; i < values.size(); i++) {
                    parts.get(i % 7).add(values.get(i)[0], (long) values.get(i)[1], false);
                }
                Aggregate merged = new Aggregate(fn);
                Collections.shuffle(parts, random);
                // Through bytes, as the online database holds them.
                parts.forEach(p -> merged.merge(Aggregate.fromBytes(fn, p.toBytes())));
                Object a = merged.value();
                Object b = whole.value();
                if (a instanceof Double x) {
                    assertThat(x).as(fn.name()).isCloseTo((Double) b, org.assertj.core.data.Offset.offset(1e-9));
                } else {
                    assertThat(a).as(fn.name()).isEqualTo(b);
                }
            }
        }
    }

    @Test
    void distinctCountsAreExactWhenSmallAndWithinThreePercentWhenLarge() {
        Hll small = new Hll();
        for (int i = 0; i < 1000; i++) {
            small.add("v" + (i % 200));
        }
        assertThat(small.estimate()).isEqualTo(200);
        for (int n : new int[] {1_000, 20_000, 300_000}) {
            Hll a = new Hll();
            Hll b = new Hll();
            for (int i = 0; i < n; i++) {
                (i % 2 == 0 ? a : b).add((long) i);
                a.add((long) (i / 2)); // overlapping halves
            }
            a.merge(b);
            assertThat((double) a.estimate()).as("n=%d", n).isCloseTo(n, org.assertj.core.data.Percentage
                    .withPercentage(3));
        }
    }
}
