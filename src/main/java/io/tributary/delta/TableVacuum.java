package io.tributary.delta;

import io.delta.kernel.CommitRange;
import io.delta.kernel.CommitRangeBuilder.CommitBoundary;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.CloseableIterator;
import io.tributary.delta.kernel.LogActions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * Deletes the data files of a table that no reader can need any more: files no Delta commit references (written by
 * a writer that was killed or whose commit failed) and files a commit removed (compaction) longer ago than the
 * retention. A file is deleted only when all three hold:
 * <ul>
 *   <li>the latest snapshot does not reference it (no add action);</li>
 *   <li>no remove action of a commit within the retention names it, so a time-travel reader of any version within the
 *       retention still finds every file of that version;</li>
 *   <li>it was last modified before the retention, so a file written for a commit that has not landed yet is never
 *       taken (a writer commits within seconds of writing; the retention is at least an hour).</li>
 * </ul>
 * The log ({@code _delta_log}) is never touched, nor is anything but Parquet data files and our own crashed
 * temporary data files (see {@link #isData}).
 */
final class TableVacuum {
    private static final Logger LOG = Logger.getLogger(TableVacuum.class);
    private static final String LOG_DIR = "_delta_log/";

    private final KernelTables tables;
    private final String path;

    TableVacuum(KernelTables tables, String path) {
        this.tables = tables;
        this.path = path;
    }

    TableUpkeep.VacuumResult run(Duration retention, long nowMillis) {
        if (retention.compareTo(TableUpkeep.MIN_VACUUM_RETENTION) < 0) {
            throw new IllegalArgumentException("a vacuum retention of " + retention + " is below the minimum of "
                    + TableUpkeep.MIN_VACUUM_RETENTION + ": files of commits in flight could be deleted");
        }
        long cutoff = nowMillis - retention.toMillis();
        Engine engine = tables.engine();
        Snapshot latest = tables.latest(path);
        Set<String> referenced = new HashSet<>();
        for (String p : TableReader.logPaths(engine, latest)) {
            referenced.add(relative(p));
        }
        removedSince(engine, latest, cutoff, referenced);

        List<Storage.Entry> doomed = new ArrayList<>();
        String prefix = path + "/";
        try {
            tables.storage().walk(path, entry -> {
                String name = entry.path().startsWith(prefix) ? entry.path().substring(prefix.length()) : null;
                if (name != null && isData(name) && entry.modificationTime() < cutoff && !referenced.contains(name)) {
                    doomed.add(entry);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("listing the files of " + path + " failed", e);
        }
        int deleted = 0;
        long bytes = 0;
        for (Storage.Entry e : doomed) {
            try {
                tables.storage().delete(e.path());
                deleted++;
                bytes += e.size();
            } catch (IOException failed) {
                // Left for the next run; the others still go.
                LOG.warnf(failed, "vacuum could not delete %s", e.path());
            }
        }
        return new TableUpkeep.VacuumResult(deleted, bytes);
    }

    /**
     * Adds the files removed by commits at or after {@code cutoff}: they belong to versions a reader may still time
     * travel to. A file removed at or after the cutoff was removed in a commit made at or after it, so reading those
     * commits is enough.
     */
    private void removedSince(Engine engine, Snapshot latest, long cutoff, Set<String> into) {
        if (latest.getTimestamp(engine) < cutoff) {
            return; // every commit, and with it every remove, is older than the retention
        }
        CommitRange range = TableManager.loadCommitRange(path, CommitBoundary.atTimestamp(cutoff, latest))
                .withEndBoundary(CommitBoundary.atVersion(latest.getVersion()))
                .build(engine);
        try (CloseableIterator<ColumnarBatch> batches = LogActions.removeActions(range, engine)) {
            while (batches.hasNext()) {
                ColumnarBatch batch = batches.next();
                ColumnVector removes = LogActions.removes(batch);
                ColumnVector paths = LogActions.removedPaths(removes);
                for (int row = 0; row < batch.getSize(); row++) {
                    if (!removes.isNullAt(row)) {
                        into.add(relative(paths.getString(row)));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the remove actions of " + path + " failed", e);
        }
    }

    /**
     * A data file path as the log records it (URI-encoded, relative to the table or absolute) as a path relative to
     * the table, decoded, to compare with what storage lists.
     */
    private String relative(String logPath) {
        URI uri;
        try {
            uri = new URI(logPath);
        } catch (URISyntaxException e) {
            return logPath;
        }
        if (!uri.isAbsolute()) {
            return uri.getPath();
        }
        String qualified = tables.storage().qualify("file".equals(uri.getScheme()) ? "file:" + uri.getPath()
                : uri.getScheme() + "://" + uri.getAuthority() + uri.getPath());
        // A file outside the table is not ours to delete either way; keep its full name.
        return qualified.startsWith(path + "/") ? qualified.substring(path.length() + 1) : qualified;
    }

    /**
     * What vacuum may look at: Parquet data files outside the log and hidden directories, plus the temporary files a
     * local writer killed before its rename left next to the data files ({@code .<name>.<uuid>.tmp}). Anything else
     * (deletion vector files, other tools' markers) is not understood here and so never deleted.
     */
    static boolean isData(String relativeName) {
        if (relativeName.startsWith(LOG_DIR)) {
            return false;
        }
        String[] parts = relativeName.split("/");
        for (int i = 0; i < parts.length - 1; i++) {
            if (parts[i].startsWith("_") || parts[i].startsWith(".")) {
                return false;
            }
        }
        String file = parts[parts.length - 1];
        if (file.startsWith(".")) {
            return parts.length == 1 && file.endsWith(".tmp");
        }
        return !file.startsWith("_") && file.endsWith(".parquet");
    }
}
