package io.tributary.registry.features;

import io.quarkus.runtime.ShutdownEvent;
import io.tributary.delta.TableChanges;
import io.tributary.delta.Tables;
import io.tributary.delta.WriteGuard;
import io.tributary.features.OfflineFeatures;
import io.tributary.features.FeatureDefinitionException;
import io.tributary.features.FeatureLookup;
import io.tributary.features.FeatureState;
import io.tributary.features.FeatureStore;
import io.tributary.features.FeatureViewCompiler;
import io.tributary.features.FeatureViewGoneException;
import io.tributary.features.FeatureViewSpec;
import io.tributary.features.MaterializeHooks;
import io.tributary.features.MaterializeResult;
import io.tributary.features.Materializer;
import io.tributary.registry.online.OnlineDatabase;
import io.tributary.registry.online.SyncedTableStore;
import io.tributary.registry.request.RegistryJson;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jboss.logging.Logger;

/**
 * Runs the materialization of feature views for every runtime (the API's create, the server's adapter after each
 * source commit and its catch-up) and turns the outcome into the view's state: a deleted source stops it
 * ({@code STOPPED}), a source it can no longer compute from fails it ({@code FAILED}, with the reason), a success
 * brings it {@code ONLINE}. A failure never escapes to the caller's pipeline.
 */
@ApplicationScoped
public class FeatureViews {
    private static final Logger LOG = Logger.getLogger(FeatureViews.class);

    @Inject
    FeatureViewStore registry;
    @Inject
    SyncedTableStore sources;
    @Inject
    OnlineDatabase online;
    @Inject
    Tables tables;

    private volatile FeatureStore store;
    private volatile MaterializeHooks hooks = MaterializeHooks.NONE;
    private volatile int chunkRecords = Materializer.CHUNK_RECORDS;
    /** Compiled definitions by view id: the source's column types are read once per process. */
    private final Map<String, FeatureViewSpec> specs = new ConcurrentHashMap<>();
    /**
     * Views this process stopped for good (their state says why and to create them again): a round would fail the
     * same way at every source commit and catch-up, each time reading the source and logging a warning. A view
     * created again has a new id; another process stops it at its own first attempt.
     */
    private final java.util.Set<String> stoppedForGood = ConcurrentHashMap.newKeySet();
    private final ExecutorService background = Executors.newFixedThreadPool(1, r -> {
        Thread t = new Thread(r, "feature-view-first-round");
        t.setDaemon(true);
        return t;
    });

    public FeatureStore store() {
        FeatureStore s = store;
        if (s == null) {
            synchronized (this) {
                if (store == null) {
                    store = new FeatureStore(online.store());
                }
                s = store;
            }
        }
        return s;
    }

    public FeatureLookup lookup() {
        return new FeatureLookup(store(), tables);
    }

    /** Tests: stop a round at a chosen point. */
    public void hooks(MaterializeHooks hooks) {
        this.hooks = hooks == null ? MaterializeHooks.NONE : hooks;
    }

    /** Tests: take first rounds in parts of about this many records (0: the default). */
    public void chunkRecords(int records) {
        this.chunkRecords = records <= 0 ? Materializer.CHUNK_RECORDS : records;
    }

    /** A view's online tables and its empty offline table, once its registry row is in (SPEC §10.1's create). */
    public void provision(FeatureViewSpec spec) {
        store().register(spec);
        new OfflineFeatures(tables).create(spec);
    }

    /** The compiled view; {@link FeatureDefinitionException} when the source no longer fits it. */
    public FeatureViewSpec spec(FeatureViewRow row) {
        FeatureViewSpec cached = specs.get(row.id());
        if (cached != null) {
            return cached;
        }
        FeatureViewRequests.Create request = RegistryJson.read(row.definition(), FeatureViewRequests.Create.class);
        try (TableChanges changes = tables.changesSince(row.sourceLocation(), -1)) {
            FeatureViewSpec spec = FeatureViewCompiler.compile(row.id(), row.fullName(), row.sourceLocation(),
                    row.offlineLocation(), row.onlineTables(), request.definition(), changes.columns());
            specs.put(row.id(), spec);
            return spec;
        }
    }

    /** The compiled view if this process compiled it already, else null (never reads the source). */
    public FeatureViewSpec cachedSpec(String id) {
        return specs.get(id);
    }

    void forget(String id) {
        specs.remove(id);
        stoppedForGood.remove(id);
    }

    /** One round; the outcome is in the state. Empty when the view is stopped, failed or gone. */
    public Optional<MaterializeResult> run(FeatureViewRow row) {
        if (stoppedForGood.contains(row.id())) {
            return Optional.empty();
        }
        try {
            String stopped = stoppedBecause(row);
            if (stopped != null) {
                store().release(List.of(row.id()), false);
                store().setState(row.id(), FeatureState.STOPPED, stopped);
                return Optional.empty();
            }
            Materializer materializer = new Materializer(tables, store(), hooks, chunkRecords);
            MaterializeResult r;
            do {
                // A first round in parts goes on at once, each part committed on its own: a crash or a Lambda's
                // time-out loses the part under way only.
                r = materializer.run(spec(row));
                if (r.toVersion() != r.fromVersion() || r.more()) {
                    LOG.debugf("materialized %s from version %d to %d%s: %d records, %d late, %d final windows",
                            row.fullName(), r.fromVersion(), r.toVersion(), r.more() ? " (a part of the first round)"
                                    : "", r.records(), r.lateDropped(), r.finalWindows());
                }
            } while (r.more());
            return Optional.of(r);
        } catch (FeatureViewGoneException e) {
            return Optional.empty();
        } catch (FeatureDefinitionException e) {
            stopForGood(row, "the source no longer fits the definition (" + e.field() + ": " + e.getMessage()
                    + "); materialization stopped: delete the feature view and create it again");
            return Optional.empty();
        } catch (UnsupportedOperationException e) {
            stopForGood(row, e.getMessage() + "; materialization stopped");
            return Optional.empty();
        } catch (io.tributary.delta.ChangesUnavailableException e) {
            // Retrying cannot help: the source's commits since the consumed version cannot be read as changes.
            stopForGood(row, e.getMessage() + (e.vacuumed() ? " (the view was more than "
                    + "TRIBUTARY_MAINTENANCE_VACUUM_RETENTION behind its source)" : "") + "; materialization "
                    + "stopped: delete the feature view and create it again, which computes it over everything the "
                    + "source holds");
            return Optional.empty();
        } catch (RuntimeException e) {
            fail(row, "the last round failed and is retried at the next commit or catch-up: " + e.getMessage(), e);
            return Optional.empty();
        }
    }

    /** Every view of a source location; never throws (the caller is an ingestion path). */
    public void runOf(String sourceLocation) {
        List<FeatureViewRow> rows;
        try {
            rows = registry.ofSource(sourceLocation);
        } catch (RuntimeException e) {
            LOG.warnf("cannot list the feature views of %s: %s", sourceLocation, e.getMessage());
            return;
        }
        for (FeatureViewRow row : rows) {
            run(row);
        }
    }

    public int catchUp() {
        List<FeatureViewRow> rows = registry.list("");
        // A view deleted through another process (or a Lambda) was forgotten there only: its tiles, which this process
        // kept after its own last round, as large as the view's open windows, stayed here until a restart.
        java.util.Set<String> ids = new java.util.HashSet<>();
        rows.forEach(row -> ids.add(row.id()));
        store().release(ids, true);
        specs.keySet().retainAll(ids);
        stoppedForGood.retainAll(ids);
        int n = 0;
        for (FeatureViewRow row : rows) {
            run(row);
            n++;
        }
        return n;
    }

    /** Every view's offline table location, with its view's id: what table maintenance compacts besides streams. */
    public Map<String, String> offlineTables() {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (FeatureViewRow row : registry.list("")) {
            out.put(row.offlineLocation(), row.id());
        }
        return out;
    }

    /**
     * The guard maintenance rewrites a view's offline table in: the view's state row locked, so no round appends
     * meanwhile (its append is based on the version it read) and a delete waits; a deleted view's table is skipped.
     */
    public WriteGuard offlineGuard(String viewId) {
        return new WriteGuard() {
            @Override
            public <T> Optional<T> run(java.util.function.Supplier<T> write) {
                return store().whileLocked(viewId, write);
            }
        };
    }

    public void submitFirst(FeatureViewRow row) {
        background.submit(() -> run(row));
    }

    public String stoppedBecause(FeatureViewRow row) {
        if (row.sourceStreamId() != null && !sources.streamExists(row.sourceStreamId())) {
            return "the source stream of table '" + row.sourceTableName() + "' was deleted; the features computed "
                    + "so far stay readable, nothing is computed any more: delete this feature view";
        }
        if (!tables.exists(row.sourceLocation())) {
            return "the source table '" + row.sourceTableName() + "' no longer exists at " + row.sourceLocation()
                    + "; the features computed so far stay readable: delete this feature view";
        }
        return null;
    }

    private void stopForGood(FeatureViewRow row, String message) {
        stoppedForGood.add(row.id());
        fail(row, message, null);
    }

    /** {@code cause}, when given, is logged with its stack and causes (the state keeps the message only). */
    private void fail(FeatureViewRow row, String message, Throwable cause) {
        LOG.warnf(cause, "feature view %s: %s", row.fullName(), message);
        try {
            store().setState(row.id(), FeatureState.FAILED, message);
        } catch (RuntimeException e) {
            LOG.debugf("recording the failure of %s failed too: %s", row.fullName(), e.getMessage());
        }
    }

    void onShutdown(@Observes ShutdownEvent event) {
        background.shutdownNow();
    }
}
