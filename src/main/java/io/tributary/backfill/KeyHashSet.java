package io.tributary.backfill;

/**
 * A set of 128-bit key hashes in one {@code long[]} with open addressing (linear probing): 16 bytes a slot and no
 * object per key, so ten million keys fit in a few hundred MB instead of gigabytes of boxed entries. The all-zero
 * slot is chosen by the low bits of the hash's second half (a multi-pass merge partitions by the high bits of the
 * first half, so every pass still spreads over all slots). The all-zero hash marks an empty slot; a real all-zero
 * hash is stored as (0, 1), which merges two keys with odds of 2^-128.
 *
 * <p>Hand-written on purpose: no library on the classpath has a primitive set of 128-bit keys (Guava's and the JDK's
 * sets box every key), and the merge's memory bound rests on the 16 bytes a slot.
 */
final class KeyHashSet {
    private static final double MAX_LOAD = 0.7;

    private long[] slots;
    private int mask;
    private int size;
    private int resizeAt;

    KeyHashSet(long expectedKeys) {
        allocate((int) Math.min(capacityFor(expectedKeys), 1 << 29));
    }

    /** Bytes a set presized for {@code keys} takes. */
    static long bytesFor(long keys) {
        return capacityFor(keys) * 16;
    }

    /** Slots for {@code keys} below the maximum load: the next power of two. */
    private static long capacityFor(long keys) {
        return Long.highestOneBit(Math.max(16, (long) (keys / MAX_LOAD) + 1) * 2 - 1);
    }

    private void allocate(int capacity) {
        slots = new long[capacity * 2];
        mask = capacity - 1;
        resizeAt = (int) (capacity * MAX_LOAD);
        size = 0;
    }

    int size() {
        return size;
    }

    /** @return true if the hash was not in the set */
    boolean add(long hi, long lo) {
        if (hi == 0 && lo == 0) {
            lo = 1;
        }
        int i = slot(hi, lo);
        if (!isEmpty(i)) {
            return false;
        }
        slots[2 * i] = hi;
        slots[2 * i + 1] = lo;
        if (++size > resizeAt) {
            grow();
        }
        return true;
    }

    boolean contains(long hi, long lo) {
        if (hi == 0 && lo == 0) {
            lo = 1;
        }
        return !isEmpty(slot(hi, lo));
    }

    /**
     * The slot holding the hash, or the empty slot where it belongs (linear probing). {@code (0, 0)} marks an empty
     * slot, so callers pass that hash as {@code (0, 1)}: a slot found that is not empty holds the hash.
     */
    private int slot(long hi, long lo) {
        int i = (int) lo & mask;
        while (true) {
            long h = slots[2 * i];
            long l = slots[2 * i + 1];
            if ((h == 0 && l == 0) || (h == hi && l == lo)) {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    private boolean isEmpty(int slot) {
        return slots[2 * slot] == 0 && slots[2 * slot + 1] == 0;
    }

    private void grow() {
        if (mask + 1 >= 1 << 29) {
            throw new IllegalStateException("more than " + resizeAt + " keys in one merge pass; raise the key memory");
        }
        long[] old = slots;
        allocate((mask + 1) * 2);
        for (int i = 0; i < old.length; i += 2) {
            if (old[i] != 0 || old[i + 1] != 0) {
                add(old[i], old[i + 1]);
            }
        }
    }
}
