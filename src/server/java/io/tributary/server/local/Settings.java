package io.tributary.server.local;

import io.quarkus.runtime.LaunchMode;
import java.util.Locale;

/**
 * The few settings local mode needs before Quarkus (and its configuration) starts: system properties, then
 * environment variables, then the launch mode's default ({@code tributary.local} is true in dev mode).
 */
final class Settings {
    private Settings() {}

    static boolean local() {
        String value = get("tributary.local");
        if (value != null) {
            return Boolean.parseBoolean(value.trim());
        }
        return LaunchMode.current() == LaunchMode.DEVELOPMENT;
    }

    static String get(String key) {
        String value = System.getProperty(key);
        if (value == null) {
            value = System.getenv(key.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_"));
        }
        return value == null || value.isBlank() ? null : value;
    }

    static String getOrDefault(String key, String fallback) {
        String value = get(key);
        return value == null ? fallback : value;
    }
}
