package io.tributary.features;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A tile's bytes in the online database: written and read in place, they must stay the bytes the stream-based form
 * wrote (the tiles and newest windows of views created by an earlier release are read back by the new one).
 */
class AggregateBytesTest {
    @Test
    void everyFunctionWritesTheStreamFormAndReadsBackTheSameValue() throws IOException {
        Random random = new Random(7);
        for (FeatureFunction f : FeatureFunction.values()) {
            for (int n : new int[] {0, 1, 5, 40, 3000}) {
                Aggregate a = new Aggregate(f);
                for (int i = 0; i < n; i++) {
                    Object v = switch (f) {
                        case FIRST, LAST -> i % 3 == 0 ? "v" + random.nextInt(100) + "é" : random.nextDouble();
                        case APPROX_COUNT_DISTINCT -> "d" + random.nextInt(5000);
                        default -> random.nextGaussian() * 100;
                    };
                    a.add(v, 1_000L + random.nextInt(10_000), f == FeatureFunction.COUNT);
                }
                byte[] bytes = a.toBytes();
                assertThat(bytes).as("%s over %d values", f, n).isEqualTo(streamForm(a));
                Aggregate back = Aggregate.fromBytes(f, bytes);
                assertThat(back.value()).as("%s over %d values", f, n).isEqualTo(a.value());
                assertThat(back.toBytes()).isEqualTo(bytes);
            }
        }
    }

    /** The form {@code Aggregate} wrote through {@link DataOutputStream} before. */
    private static byte[] streamForm(Aggregate a) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(a.count);
            switch (a.function) {
                case COUNT -> { }
                case SUM, AVG -> out.writeDouble(a.sum);
                case MIN, MAX -> {
                    out.writeDouble(a.min);
                    out.writeDouble(a.max);
                }
                case STDDEV -> {
                    out.writeDouble(a.mean);
                    out.writeDouble(a.m2);
                }
                case FIRST, LAST -> {
                    out.writeLong(a.firstTs);
                    value(out, a.first);
                    out.writeLong(a.lastTs);
                    value(out, a.last);
                }
                case APPROX_COUNT_DISTINCT -> {
                    out.writeBoolean(a.distinct.dense());
                    if (a.distinct.dense()) {
                        out.write(a.distinct.registers());
                    } else {
                        out.writeInt(a.distinct.sparse().length);
                        for (long h : a.distinct.sparse()) {
                            out.writeLong(h);
                        }
                    }
                }
            }
        }
        return bytes.toByteArray();
    }

    private static void value(DataOutputStream out, Object v) throws IOException {
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
}
