package io.tributary.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.spi.Converter;

/**
 * Durations as SPEC 6 writes them: a whole number with a unit ({@code 500ms}, {@code 1s}, {@code 5m}, {@code 1h},
 * {@code 48h}, {@code 2d}) or ISO-8601 ({@code PT1H}). A bare number is refused: its unit would be a guess.
 *
 * <p>Hand-written on purpose: Quarkus's own Duration converter reads a bare number as seconds, which SPEC 6 refuses,
 * and the functions read these settings without the server's Quarkus build steps.
 */
public final class DurationConverter implements Converter<Duration> {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    @Override
    public Duration convert(String text) {
        return parse(text);
    }

    public static Duration parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        Matcher m = SIMPLE.matcher(t);
        if (m.matches()) {
            long n;
            try {
                n = Long.parseLong(m.group(1));
            } catch (NumberFormatException e) {
                throw invalid(text);
            }
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        if (t.startsWith("p")) {
            try {
                return Duration.parse(text.trim());
            } catch (DateTimeParseException e) {
                throw invalid(text);
            }
        }
        throw invalid(text);
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("'" + text + "' is not a duration: write a whole number with a unit (500ms, "
                + "1s, 5m, 1h, 48h, 2d) or ISO-8601 such as PT1H");
    }
}
