package io.tributary.registry.store;

import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/** The registry's record of its warehouse's marker (table {@code warehouse_marker}, one row at most). */
public final class WarehouseMarkerStore {

    /** @param warehouse the root it was first written under, as that server named it */
    public record Recorded(String marker, String warehouse, Instant createdAt) {}

    private final Jdbc jdbc;

    public WarehouseMarkerStore(DataSource database) {
        this.jdbc = new Jdbc(database, "the warehouse marker");
    }

    public Optional<Recorded> read() {
        return jdbc.first("SELECT marker, warehouse, created_at FROM warehouse_marker",
                rs -> new Recorded(rs.getString(1), rs.getString(2), Jdbc.instant(rs, 3)));
    }

    /** Records the marker unless one is recorded already (another server starting at the same time won). */
    public void recordIfAbsent(String marker, String warehouse) {
        jdbc.update("INSERT INTO warehouse_marker (marker, warehouse) VALUES (?, ?) ON CONFLICT DO NOTHING", marker,
                warehouse);
    }
}
