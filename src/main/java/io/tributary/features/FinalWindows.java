package io.tributary.features;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;

/**
 * The windows with an end in {@code (from, watermark]} that hold a record, combined from their tiles, as offline rows
 * (features of one window shape share a row), produced entity by entity as they are taken: a round over a long history
 * makes millions of them, which are streamed into the offline table's data files rather than collected. Each entity's
 * newest window per tumbling or sliding feature goes to the {@link FeatureStore.LatestWriter} as the entity is done (a
 * rolling feature's is combined from the tiles at lookup, {@link FeatureLookup}). Entities come in the
 * order of their key's hash (equal hashes by key) and each entity's rows by (end, start), so a repeated round writes
 * the same rows in the same order.
 *
 * <p>A rolling feature's value changes only where a tile enters its window (the step after the tile's start) or
 * leaves it (one duration later), so it gets a row at those ends only, the one where its last tile leaves with the
 * value null; a row of another feature of the same shape carries the rolling value too. A reader takes the newest row
 * at or before the time asked (an as-of join): the same values as a row at every precision step, which a 5 m window
 * at 5 s precision made 60 of for each record.
 */
final class FinalWindows implements Iterator<FinalWindows.Row> {
    private final FeatureViewSpec spec;
    private final long from;
    /**
     * Rows ending at or before it are not produced, their windows still go to the latest writer: the offline table
     * holds them already (a round repeated after it crashed between its offline and its PostgreSQL commit).
     */
    private final long offlineFrom;
    private final long watermark;
    private final FeatureStore.LatestWriter latest;
    /** The tiles that hold part of such a window with their aggregates, by entity, feature and start. */
    private final TileKey[] relevant;
    private final Aggregate[] aggregates;
    private int next;
    private final Deque<Row> rows = new ArrayDeque<>();
    private long produced;

    /** Per feature: its window, the first start of a window ending after {@code from}, the last of one ending by the
     * watermark (worked out once, not for each tile held). */
    private final FeatureWindow[] windows;
    private final long[] firstStarts;
    private final long[] lastStarts;
    /** No window ends in {@code (from, watermark]}: the round has no row to write. */
    private final boolean none;

    FinalWindows(FeatureViewSpec spec, HeldTiles tiles, long from, long watermark,
            FeatureStore.LatestWriter latest) {
        this(spec, tiles, from, from, watermark, latest);
    }

    /** {@code offlineFrom} (at least {@code from}): see {@link #offlineFrom}. */
    FinalWindows(FeatureViewSpec spec, HeldTiles tiles, long from, long offlineFrom, long watermark,
            FeatureStore.LatestWriter latest) {
        this.spec = spec;
        this.from = from;
        this.offlineFrom = Math.max(from, offlineFrom);
        this.watermark = watermark;
        this.latest = latest;
        int n = spec.features().size();
        this.windows = new FeatureWindow[n];
        this.firstStarts = new long[n];
        this.lastStarts = new long[n];
        boolean any = false;
        for (int f = 0; f < n; f++) {
            FeatureWindow w = spec.features().get(f).window();
            windows[f] = w;
            firstStarts[f] = from == Long.MIN_VALUE ? Long.MIN_VALUE
                    : (Math.floorDiv(from - w.durationMs(), w.slideMs()) + 1) * w.slideMs();
            lastStarts[f] = watermark - w.durationMs();
            any |= watermark != Long.MIN_VALUE && firstStarts[f] <= lastStarts[f];
        }
        this.none = watermark == Long.MIN_VALUE || watermark <= from || !any;
        if (none) {
            this.relevant = new TileKey[0];
            this.aggregates = new Aggregate[0];
            return;
        }
        // Only the tiles of the starts such windows can hold are looked at, found by start (HeldTiles).
        List<TileKey> keys = new ArrayList<>();
        for (int f = 0; f < n; f++) {
            for (List<TileKey> atStart : tiles.startingIn(f, minStart(f), maxStart(f)).values()) {
                for (TileKey k : atStart) {
                    if (relevant(k)) {
                        keys.add(k);
                    }
                }
            }
        }
        // Grouped by the entity key's hash, one primitive sort, rather than sorted by the key texts: comparing
        // strings through objects scattered over the heap was a sixth of a first round's time. Within a hash, by
        // entity, feature and start, which is all the windows need (an entity's tiles together, each feature's by
        // start).
        int count = keys.size();
        long[] order = new long[count];
        for (int i = 0; i < count; i++) {
            order[i] = ((long) keys.get(i).entity().hashCode() << 32) | i;
        }
        Arrays.sort(order);
        int[] index = new int[count];
        for (int i = 0; i < count; i++) {
            index[i] = (int) order[i];
        }
        for (int i = 0, end; i < count; i = end) {
            int hash = (int) (order[i] >> 32);
            for (end = i + 1; end < count && (int) (order[end] >> 32) == hash; end++) {
                // the run of one hash: mostly one entity's tiles
            }
            sortRun(index, i, end, keys);
        }
        this.relevant = new TileKey[count];
        this.aggregates = new Aggregate[count];
        for (int i = 0; i < count; i++) {
            relevant[i] = keys.get(index[i]);
            aggregates[i] = tiles.get(relevant[i]); // looked up again rather than listed: a first round takes millions
        }
    }

    /** Sorts {@code index[from, to)} by the keys they point at: in place when short, as most runs are. */
    private static void sortRun(int[] index, int from, int to, List<TileKey> keys) {
        if (to - from <= 32) {
            for (int i = from + 1; i < to; i++) {
                int v = index[i];
                int j = i - 1;
                while (j >= from && TileKey.compare(keys.get(index[j]), keys.get(v)) > 0) {
                    index[j + 1] = index[j];
                    j--;
                }
                index[j + 1] = v;
            }
            return;
        }
        Integer[] run = new Integer[to - from];
        for (int i = from; i < to; i++) {
            run[i - from] = index[i];
        }
        Arrays.sort(run, (a, b) -> TileKey.compare(keys.get(a), keys.get(b)));
        for (int i = from; i < to; i++) {
            index[i] = run[i - from];
        }
    }

    /** The least start of a tile of feature {@code f} that {@link #relevant} may take. */
    private long minStart(int f) {
        FeatureWindow w = windows[f];
        if (w.kind() == FeatureWindow.Kind.ROLLING) {
            // start + retained > from
            return from == Long.MIN_VALUE || from - w.retainedMs() > from ? Long.MIN_VALUE
                    : from - w.retainedMs() + 1;
        }
        return firstStarts[f]; // a window's tiles start at or after its start
    }

    /** The greatest start of a tile of feature {@code f} that {@link #relevant} may take. */
    private long maxStart(int f) {
        FeatureWindow w = windows[f];
        if (w.kind() == FeatureWindow.Kind.ROLLING) {
            return watermark - w.slideMs(); // start + precision <= watermark
        }
        return lastStarts[f] + w.durationMs() - 1; // before the end of the last window ending by the watermark
    }

    /**
     * One offline row: the entity's values (strings and longs, one list shared by the entity's rows), the window in
     * epoch milliseconds, each feature's value or null.
     */
    record Row(List<Object> entity, long start, long end, Object[] values) {}

    /** How many tiles the windows are combined from. */
    int tilesTaken() {
        return relevant.length;
    }

    /** Rows produced so far. */
    long produced() {
        return produced;
    }

    /**
     * The tile bears on a row of this round: it is in a window ending in {@code (from, watermark]}; a rolling
     * feature's also while its leaving is still to be written (and its value is carried into rows of its shape).
     */
    boolean relevant(TileKey tile) {
        if (none) {
            return false;
        }
        FeatureWindow w = windows[tile.feature()];
        if (w.kind() == FeatureWindow.Kind.ROLLING) {
            return tile.start() + w.slideMs() <= watermark && tile.start() + w.retainedMs() > from;
        }
        return firstStart(tile) <= lastStart(tile);
    }

    /** The first start of a window holding the tile that ends after {@code from}. */
    private long firstStart(TileKey tile) {
        return Math.max(windows[tile.feature()].firstStartHolding(tile.start()), firstStarts[tile.feature()]);
    }

    /** The last start of a window holding the tile that ends at or before the watermark. */
    private long lastStart(TileKey tile) {
        return Math.min(tile.start(), lastStarts[tile.feature()]);
    }

    @Override
    public boolean hasNext() {
        while (rows.isEmpty() && next < relevant.length) {
            try {
                nextEntity();
            } catch (SQLException e) {
                throw new IllegalStateException("writing the newest windows of " + spec.name() + " failed: "
                        + e.getMessage(), e);
            }
        }
        return !rows.isEmpty();
    }

    @Override
    public Row next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        produced++;
        return rows.removeFirst();
    }

    /** Takes every remaining row (the offline table already holds them) for the newest windows' sake. */
    void drain() {
        while (hasNext()) {
            next();
        }
    }

    private void nextEntity() throws SQLException {
        String entity = relevant[next].entity();
        int n = spec.features().size();
        TreeMap<long[], Object[]> windows = new TreeMap<>(FinalWindows::compare);
        int[] tilesFrom = new int[n];
        int[] tilesTo = new int[n];
        while (next < relevant.length && relevant[next].entity().equals(entity)) {
            int f = relevant[next].feature();
            int end = next;
            while (end < relevant.length && relevant[end].entity().equals(entity) && relevant[end].feature() == f) {
                end++;
            }
            tilesFrom[f] = next;
            tilesTo[f] = end;
            if (this.windows[f].kind() == FeatureWindow.Kind.ROLLING) {
                rolling(entity, f, next, end, windows, n);
            } else {
                feature(entity, f, next, end, windows, n);
            }
            next = end;
        }
        // The rows of another feature of a rolling feature's shape carry its value, so that a reader taking a row of
        // that shape at or before a time finds the rolling value as of the row's end, not a null it would take for
        // "nothing in the window".
        for (int f = 0; f < n; f++) {
            FeatureWindow w = this.windows[f];
            if (w.kind() != FeatureWindow.Kind.ROLLING || tilesTo[f] == tilesFrom[f]) {
                continue;
            }
            for (Map.Entry<long[], Object[]> row : windows.entrySet()) {
                long start = row.getKey()[0];
                long end = row.getKey()[1];
                if (row.getValue()[f] == null && end - start == w.durationMs()
                        && Math.floorMod(start, w.slideMs()) == 0) {
                    Aggregate a = combine(f, tilesFrom[f], tilesTo[f], start, end);
                    row.getValue()[f] = a == null ? null : a.value();
                }
            }
        }
        List<Object> values = EntityKeys.values(entity);
        for (Map.Entry<long[], Object[]> w : windows.entrySet()) {
            if (w.getKey()[1] > offlineFrom) {
                rows.addLast(new Row(values, w.getKey()[0], w.getKey()[1], w.getValue()));
            }
        }
    }

    /** The tiles of feature f in {@code relevant[from, to)} that start in {@code [start, end)}, merged; null: none. */
    private Aggregate combine(int f, int from, int to, long start, long end) {
        Aggregate sum = null;
        for (int i = firstAtOrAfter(from, to, start); i < to && relevant[i].start() < end; i++) {
            if (sum == null) {
                sum = new Aggregate(spec.features().get(f).function());
            }
            sum.merge(aggregates[i]);
        }
        return sum;
    }

    /** The first index in {@code [from, to)} whose tile starts at or after {@code start} (tiles ascend by start). */
    private int firstAtOrAfter(int from, int to, long start) {
        int lo = from;
        int hi = to;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (relevant[mid].start() < start) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * One rolling feature of one entity (its tiles are {@code relevant[from, to)}, ascending by start): a row at each
     * end in {@code (this.from, watermark]} where its value changes, that is where a tile enters the window (one
     * precision step after the tile's start) or leaves it (a duration later). Nothing goes to the latest writer.
     */
    private void rolling(String entity, int f, int from, int to, TreeMap<long[], Object[]> windows, int n)
            throws SQLException {
        FeatureWindow w = this.windows[f];
        long[] ends = new long[2 * (to - from)];
        int size = 0;
        for (int t = from; t < to; t++) {
            long enters = relevant[t].start() + w.slideMs();
            long leaves = relevant[t].start() + w.retainedMs();
            if (enters > this.from && enters <= watermark) {
                ends[size++] = enters;
            }
            if (leaves > this.from && leaves <= watermark) {
                ends[size++] = leaves;
            }
        }
        Arrays.sort(ends, 0, size);
        for (int i = 0; i < size; i++) {
            if (i > 0 && ends[i] == ends[i - 1]) {
                continue;
            }
            long end = ends[i];
            long start = end - w.durationMs();
            Aggregate sum = combine(f, from, to, start, end);
            windows.computeIfAbsent(new long[] {start, end}, k -> new Object[n])[f] = sum == null ? null : sum.value();
        }
        // No newest window online: a lookup as of now combines a rolling window from the tiles held, which are every
        // tile of any window ending after the watermark less one precision step (FeatureLookup), so such a row would
        // only repeat them (a first round over 1M entities wrote 1M of them).
    }

    /**
     * One tumbling or sliding feature of one entity (its tiles are {@code relevant[from, to)}): its windows' values
     * into {@code windows}, its newest to the latest writer.
     */
    private void feature(String entity, int f, int from, int to, TreeMap<long[], Object[]> windows, int n)
            throws SQLException {
        Feature feature = spec.features().get(f);
        FeatureWindow w = feature.window();
        FeatureStore.Window newest = null;
        int first = from;
        // Tiles by start: the starts of the windows holding each are a run that begins and ends no earlier than the
        // previous tile's, so one sweep gives every window once, in order of start.
        long next = Long.MIN_VALUE;
        for (int t = from; t < to; t++) {
            for (long start = Math.max(firstStart(relevant[t]), next), last = lastStart(relevant[t]); start <= last;
                    start += w.slideMs()) {
                next = start + w.slideMs();
                long end = start + w.durationMs();
                Aggregate sum = new Aggregate(feature.function());
                // starts ascend, so the first tile of a window never moves back
                while (first < to && relevant[first].start() < start) {
                    first++;
                }
                for (int i = first; i < to && relevant[i].start() < end; i++) {
                    sum.merge(aggregates[i]);
                }
                windows.computeIfAbsent(new long[] {start, end}, k -> new Object[n])[f] = sum.value();
                if (newest == null || newest.end() < end) {
                    newest = new FeatureStore.Window(start, end, sum);
                }
            }
        }
        if (newest != null) {
            latest.add(entity, f, newest);
        }
    }

    private static int compare(long[] a, long[] b) {
        int c = Long.compare(a[1], b[1]);
        return c != 0 ? c : Long.compare(a[0], b[0]);
    }
}
