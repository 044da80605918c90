package io.tributary.registry.features;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
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

    /** @return false when the name or the online table prefix is taken */
    public boolean insert(FeatureViewRow row) {
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO feature_views (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        + "ON CONFLICT DO NOTHING")) {
            s.setString(1, row.fullName());
            s.setString(2, row.id());
            s.setString(3, row.sourceTableName());
            s.setString(4, row.sourceLocation());
            s.setString(5, row.sourceStreamId());
            s.setString(6, row.offlineLocation());
            s.setString(7, row.onlineTables());
            s.setString(8, row.definition());
            s.setString(9, row.owner());
            s.setTimestamp(10, Timestamp.from(row.createdAt()));
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    public Optional<FeatureViewRow> find(String fullName) {
        List<FeatureViewRow> rows = query("SELECT " + COLUMNS + " FROM feature_views WHERE full_name = ?", fullName);
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    public List<FeatureViewRow> list(String prefix) {
        return query("SELECT " + COLUMNS + " FROM feature_views WHERE full_name LIKE ? ORDER BY full_name",
                prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%");
    }

    public List<FeatureViewRow> ofSource(String sourceLocation) {
        return query("SELECT " + COLUMNS + " FROM feature_views WHERE source_location = ?", sourceLocation);
    }

    public Set<String> sourceLocations() {
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT DISTINCT source_location FROM feature_views"); ResultSet rs = s.executeQuery()) {
            Set<String> out = new HashSet<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    /** True when a registered table sits at the location (a view's offline table must not take its place). */
    public boolean tableAt(String location) {
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT 1 FROM registered_tables WHERE storage_location = ?")) {
            s.setString(1, location);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    /** The stream by name: {id, ingestion table name}, or empty. */
    public Optional<String[]> stream(String fullName) {
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT id, table_name FROM streams WHERE full_name = ?")) {
            s.setString(1, fullName);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(new String[] {rs.getString(1), rs.getString(2)}) : Optional.empty();
            }
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    public boolean delete(String fullName) {
        try (Connection c = registry.getConnection();
                PreparedStatement s = c.prepareStatement("DELETE FROM feature_views WHERE full_name = ?")) {
            s.setString(1, fullName);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    private List<FeatureViewRow> query(String sql, String... params) {
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setString(i + 1, params[i]);
            }
            List<FeatureViewRow> out = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.add(new FeatureViewRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9),
                            rs.getTimestamp(10).toInstant()));
                }
            }
            return out;
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    private static IllegalStateException unavailable(SQLException e) {
        return new IllegalStateException("the registry database failed on a feature view query: " + e.getMessage(),
                e);
    }
}
