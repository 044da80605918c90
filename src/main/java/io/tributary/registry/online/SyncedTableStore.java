package io.tributary.registry.online;

import io.tributary.online.SyncPolicy;
import io.tributary.registry.store.Jdbc;
import io.tributary.security.Privilege;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
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

    private Jdbc sql;

    @PostConstruct
    void init() {
        sql = new Jdbc(registry, "a synced table query");
    }

    /** Where a source table name points and who owns it: a registered (or ingestion) table, else the warehouse's. */
    public record Source(String fullName, String registeredLocation, String owner, String streamId) {}

    public Source source(String fullName) {
        return sql.first("SELECT t.storage_location, t.owner, (SELECT id FROM streams WHERE table_name = t.full_name) "
                + "FROM registered_tables t WHERE t.full_name = ?",
                rs -> new Source(fullName, rs.getString(1), rs.getString(2), rs.getString(3)), fullName)
                .orElseGet(() -> new Source(fullName, null, null, null));
    }

    /** The privileges {@code principal} was granted on table {@code fullName}. */
    public Set<Privilege> privileges(String fullName, String principal) {
        Set<Privilege> out = EnumSet.noneOf(Privilege.class);
        sql.list("SELECT privilege FROM grants WHERE securable_type = 'TABLE' AND securable_name = ? "
                + "AND principal = ?", rs -> rs.getString(1), fullName, principal)
                .forEach(name -> Privilege.fromApiName(name).ifPresent(out::add));
        return out;
    }

    /** True while the stream exists (by id: one created again under the same name is another). */
    public boolean streamExists(String streamId) {
        return sql.exists("SELECT 1 FROM streams WHERE id = ?", streamId);
    }

    /** @return false when the name or the PostgreSQL table name is taken */
    public boolean insert(SyncedTableRow row) {
        return sql.update("INSERT INTO synced_tables (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL) "
                + "ON CONFLICT DO NOTHING", row.fullName(), row.id(), row.sourceTableName(), row.sourceLocation(),
                row.sourceStreamId(), String.join("\n", row.primaryKeyColumns()), row.timeseriesKey(),
                row.policy().name(), row.pgTable(), row.owner(), row.createdAt()) == 1;
    }

    public Optional<SyncedTableRow> find(String fullName) {
        return sql.first("SELECT " + COLUMNS + " FROM synced_tables WHERE full_name = ?", SyncedTableStore::row,
                fullName);
    }

    /** Synced tables whose name starts with {@code prefix} (e.g. {@code "main."}), by name. */
    public List<SyncedTableRow> list(String prefix) {
        return sql.list("SELECT " + COLUMNS + " FROM synced_tables WHERE full_name LIKE ? ORDER BY full_name",
                SyncedTableStore::row, Jdbc.startingWith(prefix));
    }

    /** The CONTINUOUS synced tables of a source location (as the registry stores it). */
    public List<SyncedTableRow> continuousOf(String sourceLocation) {
        return sql.list("SELECT " + COLUMNS + " FROM synced_tables WHERE source_location = ? "
                + "AND scheduling_policy = 'CONTINUOUS'" + LIVE, SyncedTableStore::row, sourceLocation);
    }

    /** The source locations that have a CONTINUOUS synced table. */
    public Set<String> continuousLocations() {
        return new HashSet<>(sql.list("SELECT DISTINCT source_location FROM synced_tables "
                + "WHERE scheduling_policy = 'CONTINUOUS'" + LIVE, rs -> rs.getString(1)));
    }

    public List<SyncedTableRow> continuous() {
        return sql.list("SELECT " + COLUMNS + " FROM synced_tables WHERE scheduling_policy = 'CONTINUOUS'" + LIVE,
                SyncedTableStore::row);
    }

    /** Rows whose delete began and did not finish. */
    public List<SyncedTableRow> deleting() {
        return sql.list("SELECT " + COLUMNS + " FROM synced_tables WHERE deleting_since IS NOT NULL",
                SyncedTableStore::row);
    }

    /**
     * The first step of a delete: from here no schedule starts a sync of it, and a crash leaves a row that says a
     * delete is to be finished (by the next DELETE or the catch-up) rather than a PostgreSQL table nothing refers to.
     */
    public void markDeleting(String fullName) {
        sql.update("UPDATE synced_tables SET deleting_since = COALESCE(deleting_since, now()) WHERE full_name = ?",
                fullName);
    }

    /** @return false when it was not there */
    public boolean delete(String fullName) {
        return sql.update("DELETE FROM synced_tables WHERE full_name = ?", fullName) == 1;
    }

    private static SyncedTableRow row(ResultSet rs) throws SQLException {
        return new SyncedTableRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                Arrays.asList(rs.getString(6).split("\n")), rs.getString(7), SyncPolicy.valueOf(rs.getString(8)),
                rs.getString(9), rs.getString(10), Jdbc.instant(rs, 11), Jdbc.instant(rs, 12));
    }
}
