package io.tributary.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** SPEC 6: {@code TRIBUTARY_ONLINE_*}, the synced tables' PostgreSQL database and schedule. */
@ConfigMapping(prefix = "tributary.online")
public interface OnlineConfig {

    /** The PostgreSQL schema holding every synced table and their sync state. */
    @WithDefault("tributary_online")
    String schema();

    /** A separate online database ({@code jdbc:postgresql://host:port/db}); the registry database when absent. */
    Optional<String> jdbcUrl();

    Optional<String> username();

    Optional<String> password();

    /** Connections of the lookups' pool, and of the syncs' pool to a separate online database. */
    @WithDefault("16")
    int maxConnections();

    /**
     * How often the server syncs every CONTINUOUS synced table whether or not it saw a commit (commits made by other
     * processes, a sync that failed); on AWS the backfill function's tick does it.
     */
    @WithDefault("10s")
    @WithConverter(DurationConverter.class)
    Duration catchUpInterval();
}
