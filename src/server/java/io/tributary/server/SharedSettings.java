package io.tributary.server;

import io.quarkus.runtime.StartupEvent;
import io.tributary.delta.Tables;
import io.tributary.registry.service.SecretsKeyCheck;
import io.tributary.registry.store.SecretsKeyCheckStore;
import io.tributary.registry.store.WarehouseMarkerStore;
import io.tributary.security.SecretCipher;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Stops a server whose warehouse or secrets key is not the one the other servers of its registry use, before it
 * starts a pipeline (the key: {@link SecretsKeyCheck}).
 *
 * <p>The warehouse (README "Running several servers"): a server given the same local path on another machine would
 * otherwise start, fail every stream created elsewhere ("no Delta table"), and put the tables of the streams created
 * through it on its own disk, out of every other server's reach. The first server writes a random marker in a file at
 * the warehouse's root and records it in the registry; every later start reads both and must find the same.
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
    @ConfigProperty(name = "tributary.warehouse")
    String warehouse;

    // After the registry's migrations (priority 0), before the pipelines start.
    void check(@Observes @Priority(1) StartupEvent event) {
        SecretsKeyCheck.check(new SecretsKeyCheckStore(registry), cipher);
        checkWarehouse();
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
