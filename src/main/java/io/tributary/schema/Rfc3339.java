package io.tributary.schema;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;

/**
 * RFC 3339 date-time text to microseconds since the epoch (UTC). The common shape
 * {@code yyyy-mm-ddThh:mm:ss[.fraction](Z|+hh:mm)} is parsed by hand, because java.time's formatter costs about as
 * much as decoding the rest of a small JSON record; anything else goes through the formatter. A date-time without an
 * offset is taken as UTC.
 */
final class Rfc3339 {
    private static final DateTimeFormatter FALLBACK = new DateTimeFormatterBuilder()
            .parseCaseInsensitive()
            .append(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
            .optionalStart().appendOffsetId().optionalEnd()
            .toFormatter()
            .withResolverStyle(ResolverStyle.STRICT);

    private Rfc3339() {}

    /** @throws DateTimeException if the text is not a date-time or is out of range */
    static long toMicros(String s) {
        long fast = fast(s);
        if (fast != Long.MIN_VALUE) {
            return fast;
        }
        TemporalAccessor parsed = FALLBACK.parse(s);
        LocalDateTime local = LocalDateTime.from(parsed);
        ZoneOffset offset = parsed.isSupported(ChronoField.OFFSET_SECONDS)
                ? ZoneOffset.ofTotalSeconds(parsed.get(ChronoField.OFFSET_SECONDS)) : ZoneOffset.UTC;
        try {
            return Math.addExact(Math.multiplyExact(local.toEpochSecond(offset), 1_000_000L),
                    local.getNano() / 1_000L);
        } catch (ArithmeticException e) {
            throw new DateTimeException("out of range");
        }
    }

    /** @return the micros, or Long.MIN_VALUE when the text is not in the common shape */
    private static long fast(String s) {
        int n = s.length();
        if (n < 19 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return Long.MIN_VALUE;
        }
        char t = s.charAt(10);
        if (t != 'T' && t != 't' && t != ' ') {
            return Long.MIN_VALUE;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if ((year | month | day | hour | minute | second) < 0 || hour > 23 || minute > 59 || second > 59) {
            return Long.MIN_VALUE;
        }
        int i = 19;
        long micros = 0;
        if (i < n && s.charAt(i) == '.') {
            int start = ++i;
            while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                if (i - start < 6) {
                    micros = micros * 10 + (s.charAt(i) - '0');
                }
                i++;
            }
            int count = i - start;
            if (count == 0 || count > 9) {
                return Long.MIN_VALUE;
            }
            for (int k = count; k < 6; k++) {
                micros *= 10;
            }
        }
        int offsetSeconds = 0;
        if (i < n) {
            char c = s.charAt(i);
            if ((c == 'Z' || c == 'z') && i + 1 == n) {
                offsetSeconds = 0;
            } else if ((c == '+' || c == '-') && i + 6 == n && s.charAt(i + 3) == ':') {
                int oh = digits(s, i + 1, 2);
                int om = digits(s, i + 4, 2);
                if ((oh | om) < 0 || oh > 18 || om > 59) {
                    return Long.MIN_VALUE;
                }
                offsetSeconds = (oh * 3600 + om * 60) * (c == '-' ? -1 : 1);
            } else {
                return Long.MIN_VALUE;
            }
        }
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            return Long.MIN_VALUE;
        }
        long seconds = epochDay * 86_400L + hour * 3600L + minute * 60L + second - offsetSeconds;
        return seconds * 1_000_000L + micros;
    }

    private static int digits(String s, int from, int count) {
        int v = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
