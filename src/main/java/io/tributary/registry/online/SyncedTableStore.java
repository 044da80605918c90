package io.tributary.registry.online;

import io.tributary.online.SyncPolicy;
import io.tributary.security.Privilege;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The synced tables' registry rows, and what their access checks read (the source table's owner and grants), on plain
 * JDBC: its callers are the API (on a worker) and the sync schedules on plain threads, and each call is one short
 * statement, with nothing to hold in a session.
 */
@ApplicationScoped
public class SyncedTableStore {
    private static final String COLUMNS = "full_name, id, source_table_name, source_location, source_stream_id, "
            + "primary_key_columns, timeseries_key, scheduling_policy, pg_table, owner, created_at, deleting_since";
    /** Rows a schedule syncs: not being deleted. */
    private static final String LIVE = " AND deleting_since IS NULL";

    @Inject
    DataSource registry;

    /** Where a source table name points and who owns it: a registered (or ingestion) table, else the warehouse's. */
    public record Source(String fullName, String registeredLocation, String owner, String streamId) {}

    public Source source(String fullName) {
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT t.storage_location, t.owner, (SELECT id FROM streams WHERE table_name = t.full_name) "
                        + "FROM registered_tables t WHERE t.full_name = ?")) {
            s.setString(1, fullName);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? new Source(fullName, rs.getString(1), rs.getString(2), rs.getString(3))
                        : new Source(fullName, null, null, null);
            }
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    /** The privileges {@code principal} was granted on table {@code fullName}. */
    public Set<Privilege> privileges(String fullName, String principal) {
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT privilege FROM grants WHERE securable_type = 'TABLE' AND securable_name = ? "
                        + "AND principal = ?")) {
            s.setString(1, fullName);
            s.setString(2, principal);
            Set<Privilege> out = EnumSet.noneOf(Privilege.class);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    Privilege.fromApiName(rs.getString(1)).ifPresent(out::add);
                }
            }
            return out;
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    /** True while the stream exists (by id: one created again under the same name is another). */
    public boolean streamExists(String streamId) {
        try (Connection c = registry.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT 1 FROM streams WHERE id = ?")) {
            s.setString(1, streamId);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    /** @return false when the name or the PostgreSQL table name is taken */
    public boolean insert(SyncedTableRow row) {
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO synced_tables (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL) "
                        + "ON CONFLICT DO NOTHING")) {
            s.setString(1, row.fullName());
            s.setString(2, row.id());
            s.setString(3, row.sourceTableName());
            s.setString(4, row.sourceLocation());
            s.setString(5, row.sourceStreamId());
            s.setString(6, String.join("\n", row.primaryKeyColumns()));
            s.setString(7, row.timeseriesKey());
            s.setString(8, row.policy().name());
            s.setString(9, row.pgTable());
            s.setString(10, row.owner());
            s.setTimestamp(11, Timestamp.from(row.createdAt()));
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    public Optional<SyncedTableRow> find(String fullName) {
        List<SyncedTableRow> rows = query("SELECT " + COLUMNS + " FROM synced_tables WHERE full_name = ?", fullName);
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    /** Synced tables whose name starts with {@code prefix} (e.g. {@code "main."}), by name. */
    public List<SyncedTableRow> list(String prefix) {
        return query("SELECT " + COLUMNS + " FROM synced_tables WHERE full_name LIKE ? ORDER BY full_name",
                prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%");
    }

    /** The CONTINUOUS synced tables of a source location (as the registry stores it). */
    public List<SyncedTableRow> continuousOf(String sourceLocation) {
        return query("SELECT " + COLUMNS + " FROM synced_tables WHERE source_location = ? "
                + "AND scheduling_policy = 'CONTINUOUS'" + LIVE, sourceLocation);
    }

    /** The source locations that have a CONTINUOUS synced table. */
    public Set<String> continuousLocations() {
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT DISTINCT source_location FROM synced_tables WHERE scheduling_policy = 'CONTINUOUS'" + LIVE);
                ResultSet rs = s.executeQuery()) {
            Set<String> out = new java.util.HashSet<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    public List<SyncedTableRow> continuous() {
        return query("SELECT " + COLUMNS + " FROM synced_tables WHERE scheduling_policy = 'CONTINUOUS'" + LIVE);
    }

    /** Rows whose delete began and did not finish. */
    public List<SyncedTableRow> deleting() {
        return query("SELECT " + COLUMNS + " FROM synced_tables WHERE deleting_since IS NOT NULL");
    }

    /**
     * The first step of a delete: from here no schedule starts a sync of it, and a crash leaves a row that says a
     * delete is to be finished (by the next DELETE or the catch-up) rather than a PostgreSQL table nothing refers to.
     */
    public void markDeleting(String fullName) {
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(
                "UPDATE synced_tables SET deleting_since = COALESCE(deleting_since, now()) WHERE full_name = ?")) {
            s.setString(1, fullName);
            s.executeUpdate();
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    /** @return false when it was not there */
    public boolean delete(String fullName) {
        try (Connection c = registry.getConnection();
                PreparedStatement s = c.prepareStatement("DELETE FROM synced_tables WHERE full_name = ?")) {
            s.setString(1, fullName);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    private List<SyncedTableRow> query(String sql, String... params) {
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setString(i + 1, params[i]);
            }
            List<SyncedTableRow> out = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.add(new SyncedTableRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), Arrays.asList(rs.getString(6).split("\n")), rs.getString(7),
                            SyncPolicy.valueOf(rs.getString(8)), rs.getString(9), rs.getString(10),
                            rs.getTimestamp(11).toInstant(),
                            rs.getTimestamp(12) == null ? null : rs.getTimestamp(12).toInstant()));
                }
            }
            return out;
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    private static IllegalStateException unavailable(SQLException e) {
        return new IllegalStateException("the registry database failed on a synced table query: " + e.getMessage(),
                e);
    }
}
