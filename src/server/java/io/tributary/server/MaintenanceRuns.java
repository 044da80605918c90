package io.tributary.server;

import io.tributary.config.MaintenanceConfig;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.config.MaintenanceConfig;
import io.tributary.delta.Tables;
import io.tributary.maintenance.MaintenanceSettings;
import io.tributary.maintenance.TableMaintenance;
import io.tributary.registry.directory.IngestionTables;
import io.tributary.registry.features.FeatureViews;
import io.tributary.registry.lock.StreamWriteLocks;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * The server's side of table maintenance: {@link TableMaintenance} (shared with the backfill Lambda) over every
 * ingestion table in the registry and every feature view's offline table, with the settings of {@link MaintenanceConfig}. The timer that calls it lives in
 * the server's source root.
 */
@ApplicationScoped
public class MaintenanceRuns {
    private static final Logger LOG = Logger.getLogger(MaintenanceRuns.class);

    @Inject
    Tables tables;
    @Inject
    IngestionTables ingestionTables;
    @Inject
    MaintenanceConfig config;
    @Inject
    StreamWriteLocks writeLocks;
    @Inject
    FeatureViews features;

    private TableMaintenance maintenance;

    @PostConstruct
    void init() {
        maintenance = new TableMaintenance(tables, new MaintenanceSettings(config.targetFileSize(),
                config.vacuumRetention(), config.producerExpiration()), writeLocks::forTable);
    }

    public MaintenanceSettings settings() {
        return maintenance.settings();
    }

    /** One run over every ingestion table; a failure to list them is logged and the next run tries again. */
    public TableMaintenance.Summary runAll() {
        List<String> locations;
        try {
            locations = VertxContextSupport.subscribeAndAwait(() -> ingestionTables.locations());
        } catch (Throwable e) {
            LOG.warn("cannot list the ingestion tables to maintain; retrying at the next run", e);
            return new TableMaintenance.Summary(0, 0, 0, 0, 0);
        }
        TableMaintenance.Summary summary = TableMaintenance.Summary.sum(maintenance.maintainAll(locations),
                maintainOfflineFeatureTables());
        if (summary.tablesCompacted() > 0 || summary.filesVacuumed() > 0 || summary.errors() > 0) {
            LOG.infof("maintenance: %d of %d tables compacted, %d files (%d bytes) vacuumed, %d failed",
                    summary.tablesCompacted(), locations.size(), summary.filesVacuumed(), summary.bytesVacuumed(),
                    summary.errors());
        }
        return summary;
    }

    /** The feature views' offline tables, each under its view's state row lock (no round appends meanwhile). */
    private TableMaintenance.Summary maintainOfflineFeatureTables() {
        Map<String, String> offline;
        try {
            offline = features.offlineTables();
        } catch (RuntimeException e) {
            LOG.warn("cannot list the offline feature tables to maintain; retrying at the next run", e);
            return new TableMaintenance.Summary(0, 0, 0, 0, 0);
        }
        return new TableMaintenance(tables, maintenance.settings(), location -> features.offlineGuard(
                offline.get(location))).maintainAll(List.copyOf(offline.keySet()));
    }
}
