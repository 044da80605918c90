package io.tributary.server;

import io.quarkus.runtime.StartupEvent;
import io.tributary.delta.Tables;
import io.tributary.online.OnlineStore;
import io.tributary.registry.online.OnlineDatabase;
import io.tributary.registry.service.SecretsKeyCheck;
import io.tributary.registry.store.OnlineMarkerStore;
import io.tributary.registry.store.SecretsKeyCheckStore;
import io.tributary.registry.store.WarehouseMarkerStore;
import io.tributary.security.SecretCipher;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Stops a server whose warehouse, online database or secrets key is not the one the other servers of its registry use,
 * before it starts a pipeline (the key: {@link SecretsKeyCheck}).
 *
 * <p>The warehouse (README "Running several servers"): a server given the same local path on another machine would
 * otherwise start, fail every stream created elsewhere ("no Delta table"), and put the tables of the streams created
 * through it on its own disk, out of every other server's reach. The first server writes a random marker in a file at
 * the warehouse's root and records it in the registry; every later start reads both and must find the same.
 *
 * <p>The online database likewise: a server whose {@code TRIBUTARY_ONLINE_JDBC_URL} or {@code TRIBUTARY_ONLINE_SCHEMA}
 * differs from the others' would sync into tables the other servers never read and answer lookups from ones they
 * never write, each server's answers right by itself. The first server writes a marker into the online schema.
 *
 * <p>Server only: the Lambda functions always write to S3, which every function reaches alike (reading the marker would
 * add a request to each cold start), and all read the one key Terraform put in Secrets Manager.
 */
@ApplicationScoped
class SharedSettings {
    private static final Logger LOG = Logger.getLogger(SharedSettings.class);

    @Inject
    Tables tables;
    @Inject
    DataSource registry;
    @Inject
    SecretCipher cipher;
    @Inject
    OnlineDatabase online;
    @ConfigProperty(name = "tributary.warehouse")
    String warehouse;

    // After the registry's migrations (priority 0), before the pipelines start.
    void check(@Observes @Priority(1) StartupEvent event) {
        SecretsKeyCheck.check(new SecretsKeyCheckStore(registry), cipher);
        checkWarehouse();
        checkOnline(online.store(), online.where(), online.inRegistry());
    }

    /** @param inRegistry the online schema is in the registry database itself (no separate online database) */
    void checkOnline(OnlineStore store, String where, boolean inRegistry) {
        OnlineMarkerStore markers = new OnlineMarkerStore(registry);
        Optional<OnlineMarkerStore.Recorded> recorded = markers.read();
        Optional<String> found;
        try {
            if (recorded.isEmpty()) {
                // A new registry, or one from before the marker: adopt the online database's marker if it has one
                // (a registry set up again beside the same online database), else write a new one.
                markers.recordIfAbsent(store.claimMarker(UUID.randomUUID().toString()), where);
                recorded = markers.read();
            }
            found = store.marker();
        } catch (SQLException | RuntimeException e) {
            // An online database that is down is not a reason to stay down: pushes and ingestion go on, syncs and
            // lookups fail naming it until it is back (README "Synced tables").
            LOG.warnf("the online database (%s) could not be checked against the registry's (%s); checked again at "
                    + "the next start", where, e.getMessage());
            return;
        }
        OnlineMarkerStore.Recorded expected = recorded.orElseThrow();
        if (found.isPresent() && found.get().equals(expected.marker())) {
            return;
        }
        if (found.isEmpty() && inRegistry && where.equals(expected.online())) {
            // The same schema of the registry database itself, which cannot be another database: its marker went
            // with the schema (dropped by hand to start the synced tables afresh), not to somewhere else.
            try {
                store.claimMarker(expected.marker());
                LOG.warnf("the online schema's marker was missing (%s); written again", where);
                return;
            } catch (SQLException | RuntimeException e) {
                LOG.warnf("the online database's marker (%s) could not be written again (%s); checked again at the "
                        + "next start", where, e.getMessage());
                return;
            }
        }
        if (found.isEmpty()) {
            throw new IllegalStateException("the online database (" + where + ") is not the one of this registry "
                    + "database: it lacks the marker the first server wrote into " + expected.online() + " on "
                    + expected.createdAt() + ", so this server would sync into and look up tables the other servers "
                    + "never see. Servers that share a registry database need the same TRIBUTARY_ONLINE_JDBC_URL "
                    + "(or none) and TRIBUTARY_ONLINE_SCHEMA. If this is that database (moved or restored on purpose), "
                    + "write the marker: INSERT INTO " + store.markerTable() + " (marker) VALUES ('" + expected.marker()
                    + "')");
        }
        throw new IllegalStateException("the online database (" + where + ") belongs to another registry database "
                + "(its marker is " + found.get() + ", this registry's " + expected.marker() + ", first written into "
                + expected.online() + "); two registries' synced tables in one schema would overwrite each other. Set "
                + "TRIBUTARY_ONLINE_JDBC_URL and TRIBUTARY_ONLINE_SCHEMA back to " + expected.online()
                + ", or give each registry an online schema of its own");
    }

    void checkWarehouse() {
        WarehouseMarkerStore store = new WarehouseMarkerStore(registry);
        Optional<WarehouseMarkerStore.Recorded> recorded = store.read();
        Optional<String> found;
        try {
            if (recorded.isEmpty()) {
                // A new registry, or one from before the marker: adopt the warehouse's marker if it has one (a
                // registry database set up again over the same tables), else write a new one.
                String claimed = tables.claimWarehouseMarker(UUID.randomUUID().toString());
                store.recordIfAbsent(claimed, warehouse);
                recorded = store.read();
            }
            found = tables.warehouseMarker();
        } catch (UncheckedIOException | software.amazon.awssdk.core.exception.SdkException e) {
            // Not a reason to stay down: the API says which setting to fix (503) and the streams retry.
            LOG.warnf("the warehouse %s could not be checked against the registry's (%s); checked again at the next "
                    + "start", warehouse, e.getMessage());
            return;
        }
        WarehouseMarkerStore.Recorded expected = recorded.orElseThrow();
        if (found.isPresent() && found.get().equals(expected.marker())) {
            return;
        }
        if (found.isEmpty()) {
            throw new IllegalStateException("TRIBUTARY_WAREHOUSE " + warehouse + " is not the warehouse of this "
                    + "registry database: it lacks the marker the first server wrote at " + expected.warehouse()
                    + " on " + expected.createdAt() + ", so this server sees other storage than the servers before it "
                    + "(a local path on another machine, another bucket or prefix). Servers that share a registry "
                    + "database need one warehouse all of them reach: S3, or a file system each mounts at the same "
                    + "path (README \"Running several servers\"). If this is that warehouse (moved or restored on "
                    + "purpose), write the marker: echo " + expected.marker() + " > <warehouse>/.tributary-registry");
        }
        // Not "write the marker" here: that would take the warehouse from the registry it belongs to.
        throw new IllegalStateException("TRIBUTARY_WAREHOUSE " + warehouse + " belongs to another registry database "
                + "(its marker is " + found.get() + ", this registry's " + expected.marker() + ", first written at "
                + expected.warehouse() + "); two registries in one warehouse would write each other's tables. Set "
                + "TRIBUTARY_WAREHOUSE back to " + expected.warehouse() + ", or give each registry a warehouse of its "
                + "own (another bucket, prefix or path)");
    }
}
