package io.tributary.features;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A mergeable distinct count: exact (a sorted set of 64-bit hashes) up to {@link #SPARSE_MAX} values, then a
 * HyperLogLog of 2^12 registers (standard error 1.6 %). Small tiles, the common case, cost a few hundred bytes and count
 * exactly; only a tile or window with many distinct values pays the 4 KB of registers.
 */
final class Hll {
    static final int SPARSE_MAX = 256;
    private static final int P = 12;
    private static final int M = 1 << P;

    private long[] sparse = new long[0];
    private byte[] registers;

    void add(Object value) {
        long h = hash(text(value));
        if (registers != null) {
            addDense(h);
            return;
        }
        int at = Arrays.binarySearch(sparse, h);
        if (at >= 0) {
            return;
        }
        int pos = -at - 1;
        long[] next = new long[sparse.length + 1];
        System.arraycopy(sparse, 0, next, 0, pos);
        next[pos] = h;
        System.arraycopy(sparse, pos, next, pos + 1, sparse.length - pos);
        sparse = next;
        if (sparse.length > SPARSE_MAX) {
            densify();
        }
    }

    void merge(Hll other) {
        if (other.registers != null) {
            if (registers == null) {
                densify();
            }
            for (int i = 0; i < M; i++) {
                registers[i] = (byte) Math.max(registers[i], other.registers[i]);
            }
            return;
        }
        for (long h : other.sparse) {
            if (registers != null) {
                addDense(h);
            } else {
                int at = Arrays.binarySearch(sparse, h);
                if (at < 0) {
                    int pos = -at - 1;
                    long[] next = new long[sparse.length + 1];
                    System.arraycopy(sparse, 0, next, 0, pos);
                    next[pos] = h;
                    System.arraycopy(sparse, pos, next, pos + 1, sparse.length - pos);
                    sparse = next;
                    if (sparse.length > SPARSE_MAX) {
                        densify();
                    }
                }
            }
        }
    }

    long estimate() {
        if (registers == null) {
            return sparse.length;
        }
        double sum = 0;
        int zeros = 0;
        for (byte r : registers) {
            sum += Math.pow(2, -r);
            if (r == 0) {
                zeros++;
            }
        }
        double alpha = 0.7213 / (1 + 1.079 / M);
        double e = alpha * M * M / sum;
        if (e <= 2.5 * M && zeros > 0) {
            e = M * Math.log((double) M / zeros); // linear counting for small cardinalities
        }
        return Math.round(e);
    }

    private void densify() {
        registers = new byte[M];
        for (long h : sparse) {
            addDense(h);
        }
        sparse = new long[0];
    }

    private void addDense(long h) {
        int idx = (int) (h >>> (64 - P));
        int rank = Long.numberOfLeadingZeros((h << P) | (1L << (P - 1))) + 1;
        if (rank > registers[idx]) {
            registers[idx] = (byte) rank;
        }
    }

    boolean dense() {
        return registers != null;
    }

    long[] sparse() {
        return sparse;
    }

    byte[] registers() {
        return registers;
    }

    static Hll of(long[] sparse, byte[] registers) {
        Hll h = new Hll();
        h.sparse = sparse;
        h.registers = registers;
        return h;
    }

    /** Numbers by value whatever their Java type (1, 1L and 1.0 are one value), everything else by its text. */
    private static String text(Object v) {
        if (v instanceof Float f) {
            return number(f.doubleValue());
        }
        if (v instanceof Double d) {
            return number(d);
        }
        if (v instanceof java.math.BigDecimal b) {
            return number(b.doubleValue());
        }
        if (v instanceof Number n) {
            return Long.toString(n.longValue());
        }
        return "s" + v;
    }

    private static String number(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    /** FNV-1a over UTF-8, then MurmurHash3's 64-bit finaliser for well-mixed high bits. */
    static long hash(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb93fe1a85ec5L;
        h ^= h >>> 33;
        return h;
    }
}
