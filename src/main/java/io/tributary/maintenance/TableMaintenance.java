package io.tributary.maintenance;

import io.tributary.delta.TableUpkeep;
import io.tributary.delta.NoSuchTableException;
import io.tributary.delta.Tables;
import io.tributary.delta.WriteGuard;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import io.tributary.logs.LogContext;
import org.jboss.logging.Logger;

/**
 * Maintenance of ingestion tables (SPEC 4) and offline feature tables (SPEC 10.3), the same for the server's schedule and the backfill function: small files
 * are compacted without changing any row, then data files no reader needs are vacuumed. Both run next to the stream's
 * own commits: compaction rebases over concurrent appends (Kernel's conflict checker) and gives up until the next run
 * only when another rewrite removed the same files; vacuum leaves every referenced, recently removed or recently
 * written file alone.
 *
 * <p>{@link #maintain(String)} is the one entry point that rewrites or deletes a table's files: whatever must exclude
 * other writers of a table (a stream delete) belongs around it.
 */
public final class TableMaintenance {
    private static final Logger LOG = Logger.getLogger(TableMaintenance.class);

    private final Tables tables;
    private final MaintenanceSettings settings;
    private final Function<String, WriteGuard> guards;

    /** What one table's maintenance did. {@code compactedVersion}: the compaction's commit, if there was one. */
    public record TableResult(Optional<Long> compactedVersion, int filesVacuumed, long bytesVacuumed,
            List<String> producersForgotten) {}

    /** What a run over many tables did; {@code errors} counts the tables left for the next run. */
    public record Summary(int tablesMaintained, int tablesCompacted, int filesVacuumed, long bytesVacuumed, int errors) {
        public static Summary sum(Summary a, Summary b) {
            return new Summary(a.tablesMaintained + b.tablesMaintained, a.tablesCompacted + b.tablesCompacted,
                    a.filesVacuumed + b.filesVacuumed, a.bytesVacuumed + b.bytesVacuumed, a.errors + b.errors);
        }
    }

    /** Unfenced: for tables nobody deletes meanwhile (tests, tools). */
    public TableMaintenance(Tables tables, MaintenanceSettings settings) {
        this(tables, settings, location -> WriteGuard.NONE);
    }

    /**
     * @param guards the write guard of a table location: {@link #maintainAll} maintains each table inside it, so a
     *        stream delete waits for maintenance in flight and later maintenance skips the deleted table
     */
    public TableMaintenance(Tables tables, MaintenanceSettings settings, Function<String, WriteGuard> guards) {
        this.tables = tables;
        this.settings = settings;
        this.guards = guards;
    }

    public MaintenanceSettings settings() {
        return settings;
    }

    /**
     * Compacts, then vacuums one table, then forgets its idle direct-ingest producers. Vacuum goes second so the files
     * compaction just removed stay for time travel.
     *
     * @throws NoSuchTableException when the table is gone (deleted with its stream)
     */
    public TableResult maintain(String location) {
        TableUpkeep table = tables.open(location);
        Optional<Long> compacted = table.compact(settings.targetFileBytes());
        TableUpkeep.VacuumResult vacuumed = table.vacuum(settings.vacuumRetention());
        List<String> forgotten = table.forgetProducersIdleSince(Instant.now().minus(settings.producerExpiration()));
        return new TableResult(compacted, vacuumed.filesDeleted(), vacuumed.bytesDeleted(), forgotten);
    }

    /** Every table in turn; one table's failure is logged and leaves it for the next run, the others go on. */
    public Summary maintainAll(List<String> locations) {
        int maintained = 0;
        int compacted = 0;
        int files = 0;
        long bytes = 0;
        int errors = 0;
        for (String location : locations) {
            // Maintenance goes by table; its lines name the table (the stream's ingestion table) instead.
            LogContext.stream(null);
            LogContext.table(location);
            try {
                Optional<TableResult> guarded = guards.apply(location).run(() -> maintain(location));
                if (guarded.isEmpty()) {
                    continue; // its stream is deleted, or being deleted
                }
                TableResult r = guarded.get();
                if (r.compactedVersion().isPresent() || r.filesVacuumed() > 0 || !r.producersForgotten().isEmpty()) {
                    r.compactedVersion().ifPresent(LogContext::tableVersion);
                    LogContext.batchSize(r.filesVacuumed());
                    LOG.infof("maintenance of %s: %s, %d files (%d bytes) vacuumed%s", location,
                            r.compactedVersion().map(v -> "compacted as table version " + v).orElse("not compacted"),
                            r.filesVacuumed(), r.bytesVacuumed(), r.producersForgotten().isEmpty() ? ""
                                    : ", " + r.producersForgotten().size() + " producers idle for "
                                            + settings.producerExpiration() + " forgotten " + sample(r.producersForgotten()));
                }
                maintained++;
                compacted += r.compactedVersion().isPresent() ? 1 : 0;
                files += r.filesVacuumed();
                bytes += r.bytesVacuumed();
            } catch (NoSuchTableException e) {
                // deleted with its stream after the listing
            } catch (RuntimeException e) {
                errors++;
                LOG.warnf(e, "maintenance of %s failed; retrying at the next run", location);
            }
        }
        LogContext.clear();
        return new Summary(maintained, compacted, files, bytes, errors);
    }

    /** A few of the ids, for a log line: a fleet may have forgotten thousands. */
    private static String sample(List<String> ids) {
        return ids.size() <= 5 ? ids.toString() : ids.subList(0, 5) + " and " + (ids.size() - 5) + " more";
    }
}
