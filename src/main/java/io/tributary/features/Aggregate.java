package io.tributary.features;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The partial aggregate of one feature over one tile (or, merged, over a window): mergeable in any order with the same
 * result, which is what lets windows be combined from tiles and a repeated round recompute the same values. Count,
 * sum, min and max as such; avg as sum and count; stddev as count, mean and sum of squared deviations (Chan's merge,
 * numerically stable where a plain sum of squares is not); first and last by event time, ties broken by the value so
 * that the order records are read in never matters; approx_count_distinct as {@link Hll}.
 */
final class Aggregate {
    final FeatureFunction function;
    long count;
    double sum;
    double mean;
    double m2;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    long firstTs = Long.MAX_VALUE;
    Object first;
    long lastTs = Long.MIN_VALUE;
    Object last;
    Hll distinct;
    /**
     * Changed by the round under way and not yet written to the online database: a flag on the tile rather than a
     * second map of changed tiles, which for a first round over a large history held as many entries as the tiles.
     */
    boolean dirty;

    Aggregate(FeatureFunction function) {
        this.function = function;
        if (function == FeatureFunction.APPROX_COUNT_DISTINCT) {
            distinct = new Hll();
        }
    }

    /** Adds one record's value ({@code null}: the column is null; rows are counted only by a column-less count). */
    void add(Object value, long ts, boolean countRows) {
        if (value == null) {
            if (countRows) {
                count++;
            }
            return;
        }
        switch (function) {
            case COUNT -> count++;
            case SUM, AVG -> {
                count++;
                sum += ((Number) value).doubleValue();
            }
            case MIN, MAX -> {
                count++;
                double d = ((Number) value).doubleValue();
                min = Math.min(min, d);
                max = Math.max(max, d);
            }
            case STDDEV -> {
                double d = ((Number) value).doubleValue();
                count++;
                double delta = d - mean;
                mean += delta / count;
                m2 += delta * (d - mean);
            }
            case FIRST, LAST -> {
                count++;
                Object v = value instanceof Number n && !(value instanceof Double) ? n.doubleValue() : value;
                if (ts < firstTs || (ts == firstTs && compare(v, first) < 0)) {
                    firstTs = ts;
                    first = v;
                }
                if (ts > lastTs || (ts == lastTs && compare(v, last) > 0)) {
                    lastTs = ts;
                    last = v;
                }
            }
            case APPROX_COUNT_DISTINCT -> {
                count++;
                distinct.add(value);
            }
            default -> throw new IllegalStateException(function.name());
        }
    }

    void merge(Aggregate o) {
        switch (function) {
            case STDDEV -> {
                if (o.count == 0) {
                    return;
                }
                long n = count + o.count;
                double delta = o.mean - mean;
                mean += delta * o.count / n;
                m2 += o.m2 + delta * delta * ((double) count * o.count / n);
                count = n;
            }
            case APPROX_COUNT_DISTINCT -> {
                count += o.count;
                distinct.merge(o.distinct);
            }
            default -> {
                count += o.count;
                sum += o.sum;
                min = Math.min(min, o.min);
                max = Math.max(max, o.max);
                if (o.first != null && (o.firstTs < firstTs || (o.firstTs == firstTs && compare(o.first, first) < 0))) {
                    firstTs = o.firstTs;
                    first = o.first;
                }
                if (o.last != null && (o.lastTs > lastTs || (o.lastTs == lastTs && compare(o.last, last) > 0))) {
                    lastTs = o.lastTs;
                    last = o.last;
                }
            }
        }
    }

    /** The feature's value: null where Spark SQL's aggregate is null (no values; stddev of fewer than two). */
    Object value() {
        return switch (function) {
            case COUNT -> count;
            case APPROX_COUNT_DISTINCT -> distinct.estimate();
            case SUM -> count == 0 ? null : sum;
            case AVG -> count == 0 ? null : sum / count;
            case MIN -> count == 0 ? null : min;
            case MAX -> count == 0 ? null : max;
            case STDDEV -> count < 2 ? null : Math.sqrt(m2 / (count - 1));
            case FIRST -> first;
            case LAST -> last;
        };
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Object a, Object b) {
        if (b == null) {
            return a == null ? 0 : -1;
        }
        if (a instanceof Double x && b instanceof Double y) {
            return Double.compare(x, y);
        }
        return String.valueOf(a).compareTo(String.valueOf(b));
    }

    // ---- bytes, for the online database

    /**
     * Big-endian, as {@link DataOutputStream} writes them, so the bytes are the same as ever: tiles written by an
     * earlier release still read. Written and read in place rather than through the streams, which allocated their own
     * buffers (about 300 bytes for a 16-byte tile) for every tile a round writes and every tile a lookup reads: the
     * largest source of garbage on both paths, and so of the collector's pauses that lookups wait in.
     */
    private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            long[].class, java.nio.ByteOrder.BIG_ENDIAN);
    private static final java.lang.invoke.VarHandle INTS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
            int[].class, java.nio.ByteOrder.BIG_ENDIAN);

    byte[] toBytes() {
        byte[] b;
        switch (function) {
            case COUNT -> {
                b = new byte[8];
            }
            case SUM, AVG -> {
                b = new byte[16];
                LONGS.set(b, 8, Double.doubleToLongBits(sum));
            }
            case MIN, MAX -> {
                b = new byte[24];
                LONGS.set(b, 8, Double.doubleToLongBits(min));
                LONGS.set(b, 16, Double.doubleToLongBits(max));
            }
            case STDDEV -> {
                b = new byte[24];
                LONGS.set(b, 8, Double.doubleToLongBits(mean));
                LONGS.set(b, 16, Double.doubleToLongBits(m2));
            }
            case FIRST, LAST -> {
                return streamedBytes();
            }
            case APPROX_COUNT_DISTINCT -> {
                if (distinct.dense()) {
                    byte[] r = distinct.registers();
                    b = new byte[9 + r.length];
                    b[8] = 1;
                    System.arraycopy(r, 0, b, 9, r.length);
                } else {
                    long[] sparse = distinct.sparse();
                    b = new byte[13 + 8 * sparse.length];
                    INTS.set(b, 9, sparse.length);
                    for (int i = 0; i < sparse.length; i++) {
                        LONGS.set(b, 13 + 8 * i, sparse[i]);
                    }
                }
            }
            default -> throw new IllegalStateException(function.name());
        }
        LONGS.set(b, 0, count);
        return b;
    }

    /** First and last, whose values may be text in {@link DataOutputStream#writeUTF}'s form. */
    private byte[] streamedBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(count);
            out.writeLong(firstTs);
            writeValue(out, first);
            out.writeLong(lastTs);
            writeValue(out, last);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static Aggregate fromBytes(FeatureFunction function, byte[] bytes) {
        if (bytes.length == 0) {
            return null; // a rolling window that holds nothing any more (FeatureStore.LatestWriter)
        }
        Aggregate a = new Aggregate(function);
        a.count = (long) LONGS.get(bytes, 0);
        switch (function) {
            case COUNT -> { }
            case SUM, AVG -> a.sum = Double.longBitsToDouble((long) LONGS.get(bytes, 8));
            case MIN, MAX -> {
                a.min = Double.longBitsToDouble((long) LONGS.get(bytes, 8));
                a.max = Double.longBitsToDouble((long) LONGS.get(bytes, 16));
            }
            case STDDEV -> {
                a.mean = Double.longBitsToDouble((long) LONGS.get(bytes, 8));
                a.m2 = Double.longBitsToDouble((long) LONGS.get(bytes, 16));
            }
            case FIRST, LAST -> {
                try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 8, bytes.length - 8))) {
                    a.firstTs = in.readLong();
                    a.first = readValue(in);
                    a.lastTs = in.readLong();
                    a.last = readValue(in);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            case APPROX_COUNT_DISTINCT -> {
                if (bytes[8] != 0) {
                    a.distinct = Hll.of(new long[0], java.util.Arrays.copyOfRange(bytes, 9, 9 + (1 << 12)));
                } else {
                    long[] s = new long[(int) INTS.get(bytes, 9)];
                    for (int i = 0; i < s.length; i++) {
                        s[i] = (long) LONGS.get(bytes, 13 + 8 * i);
                    }
                    a.distinct = Hll.of(s, null);
                }
            }
            default -> throw new IllegalStateException(function.name());
        }
        return a;
    }

    private static void writeValue(DataOutputStream out, Object v) throws IOException {
        if (v == null) {
            out.writeByte(0);
        } else if (v instanceof Double d) {
            out.writeByte(1);
            out.writeDouble(d);
        } else {
            out.writeByte(2);
            out.writeUTF(v.toString());
        }
    }

    private static Object readValue(DataInputStream in) throws IOException {
        return switch (in.readByte()) {
            case 0 -> null;
            case 1 -> in.readDouble();
            default -> in.readUTF();
        };
    }
}
