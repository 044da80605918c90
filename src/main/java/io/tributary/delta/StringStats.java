package io.tributary.delta;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.avro.util.Utf8;

/**
 * String min/max for {@link FileStatistics}. Compares UTF-8 bytes, which is code point order, the order Delta
 * readers use for string bounds, and keeps a {@value #PREFIX}-character prefix with Delta's truncation rules.
 */
final class StringStats extends ColumnStats.Node {
    static final int PREFIX = 32;

    private byte[] min;
    private byte[] max;

    StringStats(Column column) {
        super(column);
    }

    @Override
    void addValue(Object value) {
        byte[] bytes;
        int len;
        if (value instanceof Utf8 u) {
            bytes = u.getBytes();
            len = u.getByteLength();
        } else {
            bytes = value.toString().getBytes(StandardCharsets.UTF_8);
            len = bytes.length;
        }
        if (min == null || Arrays.compareUnsigned(bytes, 0, len, min, 0, min.length) < 0) {
            min = Arrays.copyOf(bytes, len);
        }
        if (max == null || Arrays.compareUnsigned(bytes, 0, len, max, 0, max.length) > 0) {
            max = Arrays.copyOf(bytes, len);
        }
    }

    @Override
    Literal min() {
        return min == null ? null : Literal.ofString(truncateMin(new String(min, StandardCharsets.UTF_8)));
    }

    @Override
    Literal max() {
        String m = max == null ? null : truncateMax(new String(max, StandardCharsets.UTF_8));
        return m == null ? null : Literal.ofString(m);
    }

    private static final String UTF8_MAX = "\uDBFF\uDFFF";
    private static final char ASCII_MAX = '\u007F';

    /** Delta's prefix rule: never split a surrogate pair. */
    static String truncateMin(String s) {
        if (s.length() <= PREFIX) {
            return s;
        }
        if (Character.isHighSurrogate(s.charAt(PREFIX - 1)) && Character.isLowSurrogate(s.charAt(PREFIX))) {
            return s.substring(0, PREFIX + 1);
        }
        return s.substring(0, PREFIX);
    }

    /**
     * Delta's rule (StatisticsCollection.truncateMaxStringAgg): the prefix plus a tie-breaker that sorts after the
     * cut character in UTF-8 order, extending the prefix past U+10FFFF characters; null (no max) when that would need
     * more than twice the prefix length.
     */
    static String truncateMax(String s) {
        if (s.length() <= PREFIX) {
            return s;
        }
        int limit = 2 * PREFIX;
        int len = truncateMin(s).length();
        while (len <= limit) {
            if (len >= s.length()) {
                return s;
            } else if (len + 1 < s.length() && s.startsWith(UTF8_MAX, len)) {
                len += 2;
            } else if (s.charAt(len) < ASCII_MAX) {
                return s.substring(0, len) + ASCII_MAX;
            } else {
                return s.substring(0, len) + UTF8_MAX;
            }
        }
        return null;
    }
}
