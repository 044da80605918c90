package io.tributary.features;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * The tiles a view holds in memory between rounds, by key, and per feature by start. A live round changes the tiles of
 * a second's records but its windows and expiry concern only the tiles of a few starts (those of the windows ending
 * in the round, those falling behind the watermark): found by start, they no longer take a walk over every tile held
 * (10k entities with a 5-minute rolling feature hold about 600k), which was about a third of a live round's CPU.
 */
final class HeldTiles {
    private final Map<TileKey, Aggregate> byKey = new HashMap<>();
    /** Per feature: tile start → the keys of the tiles starting there. */
    private final TreeMap<Long, ArrayList<TileKey>>[] byStart;

    @SuppressWarnings("unchecked")
    HeldTiles(int features) {
        byStart = new TreeMap[features];
        for (int f = 0; f < features; f++) {
            byStart[f] = new TreeMap<>();
        }
    }

    Aggregate get(TileKey key) {
        return byKey.get(key);
    }

    void put(TileKey key, Aggregate aggregate) {
        if (byKey.put(key, aggregate) == null) {
            byStart[key.feature()].computeIfAbsent(key.start(), s -> new ArrayList<>()).add(key);
        }
    }

    int size() {
        return byKey.size();
    }

    /** Every tile (a first round, which changes nearly all it holds, writes them by walking this). */
    Set<Map.Entry<TileKey, Aggregate>> entries() {
        return byKey.entrySet();
    }

    /** The starts of feature {@code f}'s tiles in {@code [from, to]}, each with the keys of its tiles. */
    NavigableMap<Long, ArrayList<TileKey>> startingIn(int f, long from, long to) {
        return from > to ? new TreeMap<>() : byStart[f].subMap(from, true, to, true);
    }

    /** Drops, per feature, the tiles starting at or before {@code cut[f]} ({@link Long#MIN_VALUE}: none). */
    void expire(long[] cut) {
        for (int f = 0; f < byStart.length; f++) {
            if (cut[f] == Long.MIN_VALUE) {
                continue;
            }
            NavigableMap<Long, ArrayList<TileKey>> gone = byStart[f].headMap(cut[f], true);
            for (ArrayList<TileKey> keys : gone.values()) {
                for (TileKey k : keys) {
                    byKey.remove(k);
                }
            }
            gone.clear();
        }
    }
}
