package io.tributary.ingest;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps a connection's secrets out of what Tributary says: a Kafka client's exception may quote its configuration,
 * and its text reaches state messages, API errors and logs. One rule for every such place.
 */
public final class SecretRedaction {
    private static final Pattern JAAS_PASSWORD = Pattern.compile("password\\s*=\\s*\"([^\"]*)\"");
    /** Shorter values would be found inside ordinary words and make the message unreadable, not safer. */
    private static final int MIN_LENGTH = 3;

    private SecretRedaction() {}

    /**
     * {@code message} with the value of every secret-bearing property ({@code password}, {@code jaas} or
     * {@code secret} in its name, any case), and any password inside a JAAS configuration, replaced by {@code ***}.
     */
    public static String redact(String message, Map<String, String> kafkaProperties) {
        String out = message;
        for (Map.Entry<String, String> e : kafkaProperties.entrySet()) {
            String key = e.getKey().toLowerCase(Locale.ROOT);
            String value = e.getValue();
            if (value == null || !(key.contains("password") || key.contains("jaas") || key.contains("secret"))) {
                continue;
            }
            if (value.length() >= MIN_LENGTH) {
                out = out.replace(value, "***");
            }
            Matcher m = JAAS_PASSWORD.matcher(value);
            while (m.find()) {
                if (m.group(1).length() >= MIN_LENGTH) {
                    out = out.replace(m.group(1), "***");
                }
            }
        }
        return out;
    }

    /** The throwable's message (or its type when it has none), redacted. */
    public static String message(Throwable t, Map<String, String> kafkaProperties) {
        return redact(t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage(), kafkaProperties);
    }
}
