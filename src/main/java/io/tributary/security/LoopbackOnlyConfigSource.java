package io.tributary.security;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * With authentication off (no tokens, no JWT issuer) the server must not be reachable from other machines: this
 * source pins {@code quarkus.http.host} to 127.0.0.1 above every other source, including an explicit setting.
 * Registered through META-INF/services (a ServiceLoader resource, to be kept for native images).
 */
public final class LoopbackOnlyConfigSource implements ConfigSourceFactory {
    static final int ORDINAL = 1000;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (isSet(context.getValue("tributary.auth.tokens")) || isSet(context.getValue("tributary.auth.jwt.issuer"))) {
            return List.of();
        }
        return List.of(new PropertiesConfigSource(Map.of("quarkus.http.host", "127.0.0.1"),
                "tributary-auth-off-loopback", ORDINAL));
    }

    @Override
    public OptionalInt getPriority() {
        return OptionalInt.of(ORDINAL);
    }

    private static boolean isSet(ConfigValue value) {
        return value != null && value.getValue() != null && !value.getValue().isBlank();
    }
}
