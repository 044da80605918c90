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

    byte[] toBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(count);
            switch (function) {
                case COUNT -> { }
                case SUM, AVG -> out.writeDouble(sum);
                case MIN, MAX -> {
                    out.writeDouble(min);
                    out.writeDouble(max);
                }
                case STDDEV -> {
                    out.writeDouble(mean);
                    out.writeDouble(m2);
                }
                case FIRST, LAST -> {
                    out.writeLong(firstTs);
                    writeValue(out, first);
                    out.writeLong(lastTs);
                    writeValue(out, last);
                }
                case APPROX_COUNT_DISTINCT -> {
                    out.writeBoolean(distinct.dense());
                    if (distinct.dense()) {
                        out.write(distinct.registers());
                    } else {
                        out.writeInt(distinct.sparse().length);
                        for (long h : distinct.sparse()) {
                            out.writeLong(h);
                        }
                    }
                }
                default -> throw new IllegalStateException(function.name());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static Aggregate fromBytes(FeatureFunction function, byte[] bytes) {
        Aggregate a = new Aggregate(function);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            a.count = in.readLong();
            switch (function) {
                case COUNT -> { }
                case SUM, AVG -> a.sum = in.readDouble();
                case MIN, MAX -> {
                    a.min = in.readDouble();
                    a.max = in.readDouble();
                }
                case STDDEV -> {
                    a.mean = in.readDouble();
                    a.m2 = in.readDouble();
                }
                case FIRST, LAST -> {
                    a.firstTs = in.readLong();
                    a.first = readValue(in);
                    a.lastTs = in.readLong();
                    a.last = readValue(in);
                }
                case APPROX_COUNT_DISTINCT -> {
                    if (in.readBoolean()) {
                        byte[] r = new byte[1 << 12];
                        in.readFully(r);
                        a.distinct = Hll.of(new long[0], r);
                    } else {
                        long[] s = new long[in.readInt()];
                        for (int i = 0; i < s.length; i++) {
                            s[i] = in.readLong();
                        }
                        a.distinct = Hll.of(s, null);
                    }
                }
                default -> throw new IllegalStateException(function.name());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
