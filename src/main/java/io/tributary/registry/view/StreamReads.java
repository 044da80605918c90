package io.tributary.registry.view;

import io.smallrye.mutiny.Uni;
import io.tributary.registry.store.StreamRow;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The read side of the streams API (GET and list) in one SQL statement each, on the reactive client Hibernate Reactive
 * itself uses. Reads need no session, no persistence context and no managed entities; at hundreds of requests a
 * second those were most of a request's cost.
 */
@ApplicationScoped
public class StreamReads {
    private static final String COLUMNS = "s.id, s.full_name, s.definition, s.table_name, s.created_by, s.created_at,"
            + " s.backfill_state, s.backfill_max_timestamp, s.ingestion_min_timestamp, s.backfill_forced,"
            + " s.rows_merged, s.completed_at";

    private static final String ONE = "SELECT " + COLUMNS + ", t.storage_location, t.owner,"
            + " ARRAY(SELECT g.privilege FROM grants g WHERE g.securable_type = 'TABLE'"
            + " AND g.securable_name = s.table_name AND g.principal = $2) AS privileges"
            + " FROM streams s JOIN registered_tables t ON t.full_name = s.table_name WHERE s.full_name = $1";

    /** What GET needs: the stream, where its table is, and who may read it. */
    public record One(StreamRow stream, String tableLocation, String tableOwner, Set<Privilege> privileges) {}

    @Inject
    Pool pool;

    /** The stream named {@code fullName}, or null, with the privileges {@code principal} holds on its table. */
    public Uni<One> one(String fullName, String principal) {
        return pool.preparedQuery(ONE).execute(Tuple.of(fullName, principal)).map(rows -> {
            if (rows.size() == 0) {
                return null;
            }
            Row row = rows.iterator().next();
            Set<Privilege> privileges = EnumSet.noneOf(Privilege.class);
            for (String p : row.getArrayOfStrings("privileges")) {
                Privilege.fromApiName(p).ifPresent(privileges::add);
            }
            return new One(stream(row), row.getString("storage_location"), row.getString("owner"), privileges);
        });
    }

    /**
     * Up to {@code limit} streams of a catalog (and schema) after {@code after} by full name, readable by the caller.
     * The readability filter is in SQL so that a page is full whenever more readable streams exist.
     */
    public Uni<List<StreamRow>> page(Principal caller, String catalog, String schema, String after, int limit) {
        StringBuilder sql = new StringBuilder("SELECT ").append(COLUMNS)
                .append(" FROM streams s WHERE s.catalog_name = $1");
        List<Object> args = new ArrayList<>(List.of(catalog));
        if (schema != null) {
            args.add(schema);
            sql.append(" AND s.schema_name = $").append(args.size());
        }
        if (after != null) {
            args.add(after);
            sql.append(" AND s.full_name > $").append(args.size());
        }
        if (!caller.admin()) {
            args.add(caller.name());
            int p = args.size();
            // The owner is compared through a scalar subquery on purpose: written as EXISTS or a join, PostgreSQL
            // hashes every table of the owner (a seq scan of all 10k tables, 5 ms) to fill a page of 50; this way
            // it looks up the 50 tables the page needs by primary key.
            sql.append(" AND ((SELECT t.owner FROM registered_tables t WHERE t.full_name = s.table_name) = $")
                    .append(p)
                    .append(" OR EXISTS (SELECT 1 FROM grants g WHERE g.securable_type = 'TABLE'")
                    .append(" AND g.securable_name = s.table_name AND g.principal = $").append(p)
                    .append(" AND g.privilege = 'SELECT'))");
        }
        args.add(limit);
        sql.append(" ORDER BY s.full_name LIMIT $").append(args.size());
        return pool.preparedQuery(sql.toString()).execute(Tuple.from(args)).map(rows -> {
            List<StreamRow> result = new ArrayList<>(rows.size());
            for (Row row : rows) {
                result.add(stream(row));
            }
            return result;
        });
    }

    /** A detached StreamRow: the view code reads it, nothing persists it. */
    private static StreamRow stream(Row row) {
        StreamRow s = new StreamRow();
        s.id = row.getString("id");
        s.fullName = row.getString("full_name");
        s.definition = row.getString("definition");
        s.tableName = row.getString("table_name");
        s.createdBy = row.getString("created_by");
        s.createdAt = instant(row, "created_at");
        s.backfillState = row.getString("backfill_state");
        s.backfillMaxTimestamp = instant(row, "backfill_max_timestamp");
        s.ingestionMinTimestamp = instant(row, "ingestion_min_timestamp");
        s.forced = row.getBoolean("backfill_forced");
        s.rowsMerged = row.getLong("rows_merged");
        s.completedAt = instant(row, "completed_at");
        return s;
    }

    private static Instant instant(Row row, String column) {
        OffsetDateTime t = row.getOffsetDateTime(column);
        return t == null ? null : t.toInstant();
    }
}
