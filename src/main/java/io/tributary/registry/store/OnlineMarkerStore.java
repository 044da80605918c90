package io.tributary.registry.store;

import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/** The registry's record of its online database's marker (table {@code online_marker}, one row at most). */
public final class OnlineMarkerStore {

    /** @param online where the first server found it (database and schema, without credentials) */
    public record Recorded(String marker, String online, Instant createdAt) {}

    private final Jdbc jdbc;

    public OnlineMarkerStore(DataSource database) {
        this.jdbc = new Jdbc(database, "the online database marker");
    }

    public Optional<Recorded> read() {
        return jdbc.first("SELECT marker, online, created_at FROM online_marker",
                rs -> new Recorded(rs.getString(1), rs.getString(2), Jdbc.instant(rs, 3)));
    }

    /** Records the marker unless one is recorded already (another server starting at the same time won). */
    public void recordIfAbsent(String marker, String online) {
        jdbc.update("INSERT INTO online_marker (marker, online) VALUES (?, ?) ON CONFLICT DO NOTHING", marker, online);
    }
}
