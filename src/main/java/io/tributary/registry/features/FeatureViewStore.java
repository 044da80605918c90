package io.tributary.registry.features;

import io.tributary.registry.store.Jdbc;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Feature views' registry rows (plain JDBC, like the synced tables': short statements from the API's workers and
 * from the materializing threads).
 */
@ApplicationScoped
public class FeatureViewStore {
    private static final String COLUMNS = "full_name, id, source_table_name, source_location, source_stream_id, "
            + "offline_location, online_tables, definition, owner, created_at";

    @Inject
    DataSource registry;

    private Jdbc sql;

    @PostConstruct
    void init() {
        sql = new Jdbc(registry, "a feature view query");
    }

    /** @return false when the name or the online table prefix is taken */
    public boolean insert(FeatureViewRow row) {
        return sql.update("INSERT INTO feature_views (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT DO NOTHING", row.fullName(), row.id(), row.sourceTableName(), row.sourceLocation(),
                row.sourceStreamId(), row.offlineLocation(), row.onlineTables(), row.definition(), row.owner(),
                row.createdAt()) == 1;
    }

    public Optional<FeatureViewRow> find(String fullName) {
        return sql.first("SELECT " + COLUMNS + " FROM feature_views WHERE full_name = ?", FeatureViewStore::row,
                fullName);
    }

    public List<FeatureViewRow> list(String prefix) {
        return sql.list("SELECT " + COLUMNS + " FROM feature_views WHERE full_name LIKE ? ORDER BY full_name",
                FeatureViewStore::row, Jdbc.startingWith(prefix));
    }

    public List<FeatureViewRow> ofSource(String sourceLocation) {
        return sql.list("SELECT " + COLUMNS + " FROM feature_views WHERE source_location = ?", FeatureViewStore::row,
                sourceLocation);
    }

    public Set<String> sourceLocations() {
        return new HashSet<>(sql.list("SELECT DISTINCT source_location FROM feature_views", rs -> rs.getString(1)));
    }

    /** True when a registered table sits at the location (a view's offline table must not take its place). */
    public boolean tableAt(String location) {
        return sql.exists("SELECT 1 FROM registered_tables WHERE storage_location = ?", location);
    }

    /** The stream by name: {id, ingestion table name}, or empty. */
    public Optional<String[]> stream(String fullName) {
        return sql.first("SELECT id, table_name FROM streams WHERE full_name = ?",
                rs -> new String[] {rs.getString(1), rs.getString(2)}, fullName);
    }

    public boolean delete(String fullName) {
        return sql.update("DELETE FROM feature_views WHERE full_name = ?", fullName) == 1;
    }

    private static FeatureViewRow row(ResultSet rs) throws SQLException {
        return new FeatureViewRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9), Jdbc.instant(rs, 10));
    }
}
