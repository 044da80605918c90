package io.tributary.testing;

import io.tributary.config.OnlineConfig;
import java.time.Duration;
import java.util.Optional;

/** {@link OnlineConfig}s for tests that build the online database by hand, without Quarkus' configuration. */
public final class OnlineConfigs {

    private OnlineConfigs() {}

    /** The default: schema {@code tributary_online} of the registry database. */
    public static OnlineConfig inTheRegistry() {
        return of(Optional.empty(), Optional.empty(), 2);
    }

    /** A separate online database at {@code url}, schema {@code tributary_online}. */
    public static OnlineConfig separate(String url, String user) {
        return of(Optional.of(url), Optional.of(user), 4);
    }

    private static OnlineConfig of(Optional<String> url, Optional<String> user, int connections) {
        return new OnlineConfig() {
            @Override
            public String schema() {
                return "tributary_online";
            }

            @Override
            public Optional<String> jdbcUrl() {
                return url;
            }

            @Override
            public Optional<String> username() {
                return user;
            }

            @Override
            public Optional<String> password() {
                return Optional.empty();
            }

            @Override
            public int maxConnections() {
                return connections;
            }

            @Override
            public Duration catchUpInterval() {
                return Duration.ofSeconds(10);
            }
        };
    }
}
