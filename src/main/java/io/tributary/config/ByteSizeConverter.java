package io.tributary.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.spi.Converter;

/**
 * Byte sizes such as {@code 64MB}, {@code 512KB}, {@code 1GB} (powers of 1024) or a bare number of bytes.
 *
 * <p>Hand-written on purpose: Quarkus's {@code MemorySize} accepts only a one-letter unit ({@code [0-9]+[BKMGT...]?},
 * so {@code 64M} but not {@code 64MB}, the form SPEC 6 and the function configs write), and the core takes a plain
 * {@code long}, not a Quarkus type.
 */
public final class ByteSizeConverter implements Converter<Long> {

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kb|k|mb|m|gb|g)?");

    @Override
    public Long convert(String text) {
        return parse(text);
    }

    public static Long parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw invalid(text);
        }
        long shift = m.group(2) == null ? 0 : switch (m.group(2)) {
            case "kb", "k" -> 10;
            case "mb", "m" -> 20;
            case "gb", "g" -> 30;
            default -> 0;
        };
        try {
            long n = Long.parseLong(m.group(1));
            if (n > (Long.MAX_VALUE >> shift)) {
                throw invalid(text);
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw invalid(text);
        }
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("'" + text + "' is not a byte size: write a whole number with an optional "
                + "unit, e.g. 64MB, 512KB, 1GB");
    }
}
