package io.tributary.registry.online;

import io.quarkus.runtime.ShutdownEvent;
import io.tributary.delta.Tables;
import io.tributary.online.SyncException;
import io.tributary.online.SyncResult;
import io.tributary.online.SyncState;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jboss.logging.Logger;

/**
 * Runs the syncs of synced tables, for every runtime (the API's create and sync calls, the server's continuous sync,
 * the ingest and backfill functions), and turns their outcome into the synced table's state: a deleted source stops
 * it ({@code STOPPED}), a change it cannot follow fails it ({@code FAILED}, with the reason), a success brings it
 * {@code ONLINE}. A failure never escapes to the caller's pipeline: ingestion does not depend on its synced tables.
 */
@ApplicationScoped
public class SyncRunner {
    private static final Logger LOG = Logger.getLogger(SyncRunner.class);

    @Inject
    SyncedTableStore registry;
    @Inject
    OnlineDatabase online;
    @Inject
    Tables tables;

    /** First syncs after a create, off the request thread; daemon, so they never hold the process up. */
    private final ExecutorService background = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "synced-table-first-sync");
        t.setDaemon(true);
        return t;
    });

    /**
     * Synced tables whose last sync here met a change they cannot follow (a column removed or retyped): every commit
     * of a busy source would otherwise sync again only to fail the same way, reading the source and logging a warning.
     * The schedules skip them; an explicit sync ({@code POST …/sync}) still tries, and clears the mark if it succeeds.
     */
    private final java.util.Set<String> stoppedForGood = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** What the schedules run (after each commit, the catch-up): {@link #run} unless the table stopped for good here. */
    private void runScheduled(SyncedTableRow row) {
        if (!stoppedForGood.contains(row.id())) {
            run(row);
        }
    }

    /** Syncs once; the outcome is in the state. Empty when the synced table is stopped, failed or gone. */
    public Optional<SyncResult> run(SyncedTableRow row) {
        if (row.deleting()) {
            return Optional.empty();
        }
        try {
            String stopped = stoppedBecause(row);
            if (stopped != null) {
                online.store().setState(row.id(), SyncState.STOPPED, stopped);
                return Optional.empty();
            }
            SyncResult result = online.sync().run(row.spec());
            if (result.changed()) {
                LOG.debugf("synced %s from version %d to %d: %d rows (%d NULL and %d oversized keys, %d oversized "
                        + "rows skipped) in %d ms", row.fullName(), result.fromVersion(), result.toVersion(),
                        result.rowsRead(), result.nullKeysSkipped(), result.oversizedKeysSkipped(),
                        result.oversizedRowsSkipped(), result.nanos() / 1_000_000);
            }
            stoppedForGood.remove(row.id());
            return Optional.of(result);
        } catch (SyncException | UnsupportedOperationException e) {
            stoppedForGood.add(row.id());
            fail(row, e.getMessage() + "; syncing stopped");
            return Optional.empty();
        } catch (RuntimeException e) {
            // A database or storage that did not answer: the next commit or catch-up tries again.
            fail(row, "the last sync failed and is retried at the next commit or catch-up: " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Syncs every CONTINUOUS synced table of a source location that the registry lists. Never throws: the caller is
     * an ingestion path, which must not fail for its synced tables (the catch-up tries again).
     */
    public void runContinuousOf(String sourceLocation) {
        List<SyncedTableRow> rows;
        try {
            rows = registry.continuousOf(sourceLocation);
        } catch (RuntimeException e) {
            LOG.warnf("cannot list the synced tables of %s: %s", sourceLocation, e.getMessage());
            return;
        }
        for (SyncedTableRow row : rows) {
            runScheduled(row);
        }
    }

    /**
     * The catch-up: every CONTINUOUS synced table, and any other one that never synced (a first sync cut short by a
     * restart, or by a Lambda function frozen after its answer). Returns how many it ran.
     */
    public int catchUp() {
        int n = 0;
        for (SyncedTableRow row : registry.deleting()) {
            try {
                delete(row);
                LOG.infof("finished the delete of synced table %s, begun %s", row.fullName(), row.deletingSince());
            } catch (RuntimeException e) {
                LOG.warnf("finishing the delete of synced table %s failed (tried again at the next catch-up): %s",
                        row.fullName(), e.getMessage());
            }
        }
        for (SyncedTableRow row : registry.continuous()) {
            runScheduled(row);
            n++;
        }
        for (SyncedTableRow row : registry.list("")) {
            if (row.policy() != io.tributary.online.SyncPolicy.CONTINUOUS && !row.deleting()) {
                SyncState state = online.store().state(row.id());
                if (state != null && state.version() < 0 && !SyncState.FAILED.equals(state.state())
                        && !SyncState.STOPPED.equals(state.state())) {
                    run(row);
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * Deletes a synced table, in an order a crash cannot leak from: mark the row (no schedule syncs it from here), drop
     * the PostgreSQL table with its state row (one transaction, which waits for a sync in flight), then remove the
     * row. A crash before the end leaves the marked row, which the next DELETE or {@link #catchUp()} finishes.
     */
    public void delete(SyncedTableRow row) {
        registry.markDeleting(row.fullName());
        online.store().drop(row.id(), row.pgTable());
        online.hooks().afterDrop(row.id());
        registry.delete(row.fullName());
        stoppedForGood.remove(row.id());
    }

    /** Runs the first sync of a new synced table in the background. */
    public void submitFirst(SyncedTableRow row) {
        background.submit(() -> run(row));
    }

    /** Why the synced table no longer syncs, or null: its source stream was deleted, or its source table. */
    public String stoppedBecause(SyncedTableRow row) {
        if (row.sourceStreamId() != null && !registry.streamExists(row.sourceStreamId())) {
            return "the source stream of table '" + row.sourceTableName() + "' was deleted; the rows synced so far "
                    + "stay readable, nothing syncs any more: delete this synced table";
        }
        if (!tables.exists(row.sourceLocation())) {
            return "the source table '" + row.sourceTableName() + "' no longer exists at " + row.sourceLocation()
                    + "; the rows synced so far stay readable, nothing syncs any more: delete this synced table";
        }
        return null;
    }

    private void fail(SyncedTableRow row, String message) {
        LOG.warnf("synced table %s: %s", row.fullName(), message);
        try {
            online.store().setState(row.id(), SyncState.FAILED, message);
        } catch (RuntimeException e) {
            LOG.debugf("recording the failure of %s failed too: %s", row.fullName(), e.getMessage());
        }
    }

    void onShutdown(@Observes ShutdownEvent event) {
        background.shutdownNow();
    }
}
