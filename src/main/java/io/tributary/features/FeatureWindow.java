package io.tributary.features;

/**
 * A feature's window, all in epoch milliseconds aligned to the epoch (as Spark SQL's {@code window}):
 * tumbling windows {@code [k·d, (k+1)·d)}, sliding windows {@code [k·s, k·s + d)}, and rolling windows evaluated
 * at every multiple of the precision p: as of t, the window {@code [E − d, E)} with {@code E = ⌊t / p⌋·p}. Rows are
 * aggregated into tiles of {@code gcd(d, s)} (a rolling window's tile is its precision), so every window is a union of
 * whole tiles and is combined from them rather than recomputed from records.
 */
public record FeatureWindow(Kind kind, long durationMs, long slideMs) {
    public enum Kind { TUMBLING, SLIDING, ROLLING }

    public long tileMs() {
        return gcd(durationMs, slideMs);
    }

    /**
     * How far behind the watermark a tile is still needed: the duration, and for a rolling window one precision step
     * more, because the window ending one step after the last that holds a tile is where the tile's records leave the
     * rolling value, a change the offline table records (SPEC 10.3).
     */
    public long retainedMs() {
        return kind == Kind.ROLLING ? durationMs + slideMs : durationMs;
    }

    /** The start of the tile holding {@code ts}. */
    public long tileStart(long ts) {
        return Math.floorDiv(ts, tileMs()) * tileMs();
    }

    /** The first window start whose window holds {@code ts} (windows start at multiples of the slide). */
    public long firstStartHolding(long ts) {
        return (Math.floorDiv(ts - durationMs, slideMs) + 1) * slideMs;
    }

    /** The newest window end at or before {@code t}. */
    public long endAtOrBefore(long t) {
        return Math.floorDiv(t - durationMs, slideMs) * slideMs + durationMs;
    }

    static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
