package io.tributary.features;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A round takes its windows' tiles by start ({@link HeldTiles#startingIn}) instead of walking every tile held: for
 * any round's range, exactly the tiles a window of the round needs (the same test, {@link FinalWindows#relevant}, as
 * the walk applied to every tile), and expiry drops exactly the tiles at or before each feature's cut.
 */
class HeldTilesTest {
    static final List<FeatureWindow> WINDOWS = List.of(
            new FeatureWindow(FeatureWindow.Kind.TUMBLING, 10, 10),
            new FeatureWindow(FeatureWindow.Kind.SLIDING, 60, 15),
            new FeatureWindow(FeatureWindow.Kind.ROLLING, 50, 5));

    static FeatureViewSpec spec() {
        List<Feature> features = WINDOWS.stream()
                .map(w -> new Feature("f" + w.kind(), FeatureFunction.COUNT, null, false, w)).toList();
        return new FeatureViewSpec("v", "c.s.v", "unused", List.of(List.of("value", "user")), List.of("value_user"),
                List.of("string"), List.of("ts"), true, 0, features, "unused", "fv_v");
    }

    static HeldTiles held(Random random) {
        HeldTiles tiles = new HeldTiles(WINDOWS.size());
        for (int e = 0; e < 20; e++) {
            for (int f = 0; f < WINDOWS.size(); f++) {
                long tile = WINDOWS.get(f).tileMs();
                for (long start = -600; start <= 600; start += tile) {
                    if (random.nextInt(3) > 0) {
                        Aggregate a = new Aggregate(FeatureFunction.COUNT);
                        a.add(Boolean.TRUE, start, true);
                        tiles.put(new TileKey("[\"e" + e + "\"]", f, start), a);
                    }
                }
            }
        }
        return tiles;
    }

    @Test
    void aRoundTakesExactlyTheTilesItsWindowsNeed() {
        Random random = new Random(7);
        FeatureViewSpec spec = spec();
        HeldTiles tiles = held(random);
        for (int round = 0; round < 300; round++) {
            long from = round % 10 == 0 ? Long.MIN_VALUE : random.nextInt(1400) - 700;
            long watermark = (from == Long.MIN_VALUE ? -700 : from) + 1 + random.nextInt(round % 3 == 0 ? 400 : 30);
            FinalWindows windows = new FinalWindows(spec, tiles, from, watermark, null);
            long needed = tiles.entries().stream().filter(e -> windows.relevant(e.getKey())).count();
            assertThat(windows.tilesTaken()).as("from %d, watermark %d", from, watermark).isEqualTo(needed);
        }
    }

    @Test
    void expiryDropsTheTilesAtOrBeforeEachFeaturesCut() {
        HeldTiles tiles = held(new Random(11));
        long[] cut = {-100, Long.MIN_VALUE, 250};
        long keep = tiles.entries().stream().map(Map.Entry::getKey)
                .filter(k -> cut[k.feature()] == Long.MIN_VALUE || k.start() > cut[k.feature()]).count();

        tiles.expire(cut);

        assertThat(tiles.size()).isEqualTo(keep);
        assertThat(tiles.entries()).allSatisfy(e -> assertThat(e.getKey().start() > cut[e.getKey().feature()]
                || cut[e.getKey().feature()] == Long.MIN_VALUE).isTrue());
        assertThat(tiles.startingIn(0, Long.MIN_VALUE, -100)).isEmpty();
        assertThat(tiles.startingIn(2, Long.MIN_VALUE, Long.MAX_VALUE).keySet()).allSatisfy(s -> assertThat(s)
                .isGreaterThan(250));
    }
}
