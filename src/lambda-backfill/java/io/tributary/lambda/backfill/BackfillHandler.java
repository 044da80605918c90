package io.tributary.lambda.backfill;

import io.tributary.lambda.mappings.PatternRefresh;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.backfill.Backfill;
import io.tributary.backfill.BackfillSettings;
import io.tributary.config.BackfillConfig;
import io.tributary.config.MaintenanceConfig;
import io.tributary.delta.Tables;
import io.tributary.maintenance.MaintenanceSettings;
import io.tributary.maintenance.TableMaintenance;
import io.tributary.registry.directory.BackfillRound;
import io.tributary.registry.directory.BackfillTargets;
import io.tributary.registry.directory.IngestionTables;
import io.tributary.registry.lock.StreamWriteLocks;
import io.tributary.config.ByteSizeConverter;
import io.tributary.config.DurationConverter;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;

/**
 * The backfill function: each scheduled tick refreshes the event source mappings of every {@code subscribe_pattern}
 * stream ({@link PatternRefresh}: topics that started to match get one, deleted topics lose theirs), runs the overlap
 * check of every stream with a backfill source, merges those that are ready (SPEC 5; the same {@link BackfillRound}
 * the server's schedule runs) and maintains every ingestion table (SPEC 4: {@link TableMaintenance} compacts small
 * files and vacuums data files no reader needs, as the server's schedule does). A failing pattern refresh
 * is counted in the result and logged; it holds up neither the other streams nor the backfill. Only the schedule may
 * invoke it.
 */
public class BackfillHandler implements RequestHandler<ScheduledEvent, BackfillSummary> {
    private static final org.jboss.logging.Logger LOG = org.jboss.logging.Logger.getLogger(BackfillHandler.class);
    static final String SCHEDULER_SOURCE = "tributary.scheduler";
    static final String EVENTS_SOURCE = "aws.events";

    @Inject
    PatternRefresh patterns;
    @Inject
    BackfillTargets targets;
    @Inject
    IngestionTables ingestionTables;
    @Inject
    Tables tables;
    @Inject
    StreamWriteLocks writeLocks;
    @Inject
    BackfillConfig backfillConfig;
    @Inject
    MaintenanceConfig maintenanceConfig;
    @Inject
    io.tributary.registry.online.SyncRunner synced;
    @Inject
    io.tributary.registry.features.FeatureViews features;

    @Override
    public BackfillSummary handleRequest(ScheduledEvent event, Context context) {
        if (event == null || !(SCHEDULER_SOURCE.equals(event.source()) || EVENTS_SOURCE.equals(event.source()))) {
            throw new IllegalArgumentException("source is '" + (event == null ? null : event.source())
                    + "'; backfill runs only from its schedule (source '" + SCHEDULER_SOURCE + "' or '"
                    + EVENTS_SOURCE + "')");
        }
        TableMaintenance maintenance = maintenance();
        PatternRefresh.Summary refreshed = patterns.run();
        Backfill backfill = new Backfill(tables,
                BackfillSettings.of(backfillConfig.minOverlap(), backfillConfig.maxWait()), Clock.systemUTC());
        List<BackfillRound.Result> results;
        try {
            results = new BackfillRound(targets, backfill, writeLocks).run();
        } catch (Exception e) {
            throw new IllegalStateException("backfill check failed: " + e.getMessage(), e);
        }
        TableMaintenance.Summary maintained = maintainAll(maintenance);
        // The synced tables' catch-up: what the ingest function's own syncs left behind, merges, first syncs.
        try {
            synced.catchUp();
        } catch (RuntimeException e) {
            LOG.warnf("the synced tables' catch-up failed: %s", e.getMessage());
        }
        // The feature views' catch-up: every view, one round each (first rounds cut short, merges, failed rounds).
        try {
            features.catchUp();
        } catch (RuntimeException e) {
            LOG.warnf("the feature views' catch-up failed: %s", e.getMessage());
        }
        long merged = results.stream().filter(r -> r.rowsMerged() != null).count();
        long failed = results.stream().filter(BackfillRound.Result::error).count();
        return new BackfillSummary(results.size(), merged, failed, maintained.tablesCompacted(),
                maintained.filesVacuumed(), maintained.bytesVacuumed(), maintained.errors(), refreshed.streamsChecked(),
                refreshed.mappingsAdded(), refreshed.mappingsRemoved(), refreshed.failures());
    }

    /** Lists the ingestion tables; {@link TableMaintenance} carries on past one table's failure. */
    private TableMaintenance.Summary maintainAll(TableMaintenance maintenance) {
        List<String> locations;
        try {
            locations = VertxContextSupport.subscribeAndAwait(() -> ingestionTables.locations());
        } catch (Throwable e) {
            throw new IllegalStateException("cannot list the ingestion tables to maintain", e);
        }
        TableMaintenance.Summary streams = maintenance.maintainAll(locations);
        // The feature views' offline tables, each under its view's state row lock (no round appends meanwhile).
        java.util.Map<String, String> offline;
        try {
            offline = features.offlineTables();
        } catch (RuntimeException e) {
            LOG.warnf("cannot list the offline feature tables to maintain: %s", e.getMessage());
            return streams;
        }
        return TableMaintenance.Summary.sum(streams, new TableMaintenance(tables, maintenance.settings(),
                location -> features.offlineGuard(offline.get(location))).maintainAll(List.copyOf(offline.keySet())));
    }

    /**
     * Checked before anything runs: a bad setting fails every invocation at once, naming the variable. Each table is
     * maintained under its write lock, so a stream deleted meanwhile (by stream-api, another process) is skipped, and
     * a delete waits for maintenance in flight instead of having it recreate the log it removed.
     */
    private TableMaintenance maintenance() {
        return new TableMaintenance(tables, new MaintenanceSettings(maintenanceConfig.targetFileSize(),
                maintenanceConfig.vacuumRetention(), maintenanceConfig.producerExpiration()), writeLocks::forTable);
    }
}
