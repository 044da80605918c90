package io.tributary.features;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as a definition writes them: a whole number and a unit, {@code 500ms}, {@code 30s}, {@code 10m}, {@code 1h}, {@code 1d}. */
public final class Durations {
    private static final Pattern FORM = Pattern.compile("([0-9]{1,12})(ms|s|m|h|d)");

    private Durations() {}

    /** Milliseconds; {@link FeatureDefinitionException} naming {@code field} when the text is not a duration. */
    public static long parse(String field, String text, boolean zeroAllowed) {
        if (text == null) {
            throw new FeatureDefinitionException(field, "is required: a duration such as 30s, 10m, 1h or 1d");
        }
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            throw new FeatureDefinitionException(field, "must be a duration such as 500ms, 30s, 10m, 1h or 1d, got '"
                    + shorten(text) + "'");
        }
        long n = Long.parseLong(m.group(1));
        long unit = switch (m.group(2)) {
            case "ms" -> 1L;
            case "s" -> 1_000L;
            case "m" -> 60_000L;
            case "h" -> 3_600_000L;
            default -> 86_400_000L;
        };
        if (n > Long.MAX_VALUE / unit / 4 || n * unit > 366L * 86_400_000L) {
            throw new FeatureDefinitionException(field, "must be at most 366d, got '" + shorten(text) + "'");
        }
        if (n == 0 && !zeroAllowed) {
            throw new FeatureDefinitionException(field, "must be longer than 0");
        }
        return n * unit;
    }

    /** The shortest exact form: 3600000 → 1h. */
    public static String format(long ms) {
        if (ms == 0) {
            return "0s";
        }
        if (ms % 86_400_000L == 0) {
            return ms / 86_400_000L + "d";
        }
        if (ms % 3_600_000L == 0) {
            return ms / 3_600_000L + "h";
        }
        if (ms % 60_000L == 0) {
            return ms / 60_000L + "m";
        }
        if (ms % 1_000L == 0) {
            return ms / 1_000L + "s";
        }
        return ms + "ms";
    }

    static String shorten(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "…" : s;
    }
}
