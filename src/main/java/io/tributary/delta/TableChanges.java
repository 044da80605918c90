package io.tributary.delta;

import io.delta.kernel.CommitRange;
import io.delta.kernel.CommitRangeBuilder.CommitBoundary;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.tributary.delta.kernel.KernelIterators;
import io.tributary.delta.kernel.LogActions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * The rows that the commits after a version added to a table, for a reader that keeps a copy in step with it (a synced
 * table): the data files of those commits' add actions with {@code dataChange = true}, read whole, in commit order.
 *
 * <p>Why the add actions and not "live now but not live then": a commit whose adds carry {@code dataChange = false}
 * only rearranges rows already in the table (compaction; the Delta protocol's meaning of the flag), so it adds no row
 * here, however large its files; and a file added after the version and compacted away since is still read (vacuum
 * keeps it for the retention), so no row is missed when the reader falls behind a compaction. A merge's new files are
 * {@code dataChange = true} and are read like an append's. Removes are not reported: a reader that keeps the latest
 * row per key sees a merge's rewritten rows again in its new files, which is idempotent for it. A reader that counts
 * rows (a feature view) asks {@link #netOfRewrites()}: the rows of the files the commits removed with
 * {@code dataChange = true} are then taken out of the rows their adds bring, so a rewrite (a rescued-records replay,
 * another writer's UPDATE or MERGE) yields only the rows it changed or added, not its files' other rows again.
 *
 * <p>Only tables whose data files hold every column under its own name are read this way: no partition columns, no
 * column mapping, no deletion vectors (every ingestion table; {@link UnsupportedOperationException} names which one a
 * registered table uses).
 */
public final class TableChanges implements TableRows {
    private final Engine engine;
    private final String tableRoot;
    private final long version;
    private final long afterVersion;
    private final String tableId;
    private final long committedAtMs;
    private final StructType schema;
    /** What data files are read with: the schema, or the top-level columns {@link #only} kept of it. */
    private StructType readSchema;
    private final List<LeafColumn> columns;
    private final List<LogActions.AddedFile> files = new ArrayList<>();
    /** The data files the commits removed with {@code dataChange = true} (a rewrite's, a delete's). */
    private final List<LogActions.RemovedFile> removed = new ArrayList<>();
    private boolean net;
    /** With {@link #net}: the removed files' rows (canonical, see {@link #canonical}) and how many of each remain. */
    private Map<Object, int[]> removedRows;
    private long rowsNetted;
    private int nextFile;
    private CloseableIterator<ColumnarBatch> data;
    private final Deque<Map<String, Object>> pending = new ArrayDeque<>();
    private final TableReader snapshotRows;
    private final Optional<String> unsupported;

    /** The rows added after {@code afterVersion} up to the latest version; all rows of it when afterVersion < 0. */
    static TableChanges since(Engine engine, Snapshot latest, long afterVersion) {
        return new TableChanges(engine, latest, afterVersion);
    }

    private TableChanges(Engine engine, Snapshot latest, long afterVersion) {
        this.engine = engine;
        this.tableRoot = latest.getPath().replaceAll("/+$", "");
        this.version = latest.getVersion();
        this.afterVersion = afterVersion;
        this.tableId = io.tributary.delta.kernel.TableIds.of(latest);
        this.committedAtMs = latest.getTimestamp(engine);
        this.schema = latest.getSchema();
        this.readSchema = schema;
        this.columns = leaves(schema);
        this.unsupported = unsupported(latest);
        if (afterVersion < 0) {
            // A first copy: Kernel's scan of the snapshot, which handles every table feature it reads.
            this.snapshotRows = new TableReader(engine, latest);
            return;
        }
        this.snapshotRows = null;
        if (afterVersion > version) {
            throw ChangesUnavailableException.replaced(tableRoot, afterVersion, "its latest version is " + version);
        }
        if (unsupported.isPresent()) {
            throw new UnsupportedOperationException(unsupported.get());
        }
        if (afterVersion == version) {
            return;
        }
        try {
            readActions(engine, afterVersion);
        } catch (io.delta.kernel.exceptions.StartVersionNotFoundException e) {
            throw ChangesUnavailableException.logCleanedUp(tableRoot, afterVersion, e.getEarliestAvailableVersion()
                    .map(v -> "its earliest version is now " + v).orElse("no commit file of them is left"));
        } catch (io.delta.kernel.exceptions.CommitRangeNotFoundException e) {
            throw ChangesUnavailableException.logCleanedUp(tableRoot, afterVersion, "no commit file of them is left");
        }
    }

    /** The add and remove actions of the commits after {@code afterVersion} up to {@link #version}. */
    private void readActions(Engine engine, long afterVersion) {
        CommitRange range = TableManager.loadCommitRange(tableRoot, CommitBoundary.atVersion(afterVersion + 1))
                .withEndBoundary(CommitBoundary.atVersion(version)).build(engine);
        try (CloseableIterator<ColumnarBatch> batches = LogActions.addAndRemoveActions(range, engine)) {
            while (batches.hasNext()) {
                ColumnarBatch batch = batches.next();
                ColumnVector adds = LogActions.adds(batch);
                ColumnVector removes = LogActions.removes(batch);
                for (int row = 0; row < batch.getSize(); row++) {
                    if (!removes.isNullAt(row)) {
                        LogActions.RemovedFile file = LogActions.removedFile(removes, row);
                        if (file.dataChange()) {
                            removed.add(file);
                        }
                    }
                    if (adds.isNullAt(row)) {
                        continue;
                    }
                    LogActions.AddedFile file = LogActions.addedFile(adds, row);
                    if (file.deletionVector()) {
                        throw new UnsupportedOperationException("the table at " + tableRoot
                                + " uses deletion vectors, which a synced copy cannot follow incrementally");
                    }
                    if (file.dataChange()) {
                        files.add(file);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the add actions of " + tableRoot + " failed", e);
        }
    }

    /** The rows of some data files of {@code snapshot}, in the order given (see {@link Tables#changesOf}). */
    static TableChanges of(Engine engine, Snapshot snapshot, List<SnapshotFiles.File> files) {
        TableChanges out = new TableChanges(engine, snapshot, snapshot.getVersion());
        if (out.unsupported.isPresent()) {
            throw new UnsupportedOperationException(out.unsupported.get());
        }
        for (SnapshotFiles.File f : files) {
            out.files.add(new LogActions.AddedFile(f.logPath(), f.size(), f.modificationTime(), true, false));
        }
        return out;
    }

    /** The live files of {@code snapshot}, with the least value of one leaf column (see {@link Tables#snapshotFiles}). */
    static SnapshotFiles files(Engine engine, Snapshot snapshot, List<String> minColumn) {
        List<SnapshotFiles.File> out = new ArrayList<>();
        boolean[] deletions = {false};
        LiveFiles.forEach(engine, snapshot, true, scanFile -> {
            if (io.tributary.delta.kernel.ScanFiles.hasDeletionVector(scanFile)) {
                deletions[0] = true;
            }
            FileStatus status = io.tributary.delta.kernel.ScanFiles.fileStatus(scanFile);
            String json = io.tributary.delta.kernel.ScanFiles.statsJson(io.tributary.delta.kernel.ScanFiles
                    .addFile(scanFile));
            long records = -1;
            String min = null;
            if (json != null) {
                try {
                    com.fasterxml.jackson.databind.JsonNode stats = STATS.readTree(json);
                    records = stats.path("numRecords").asLong(-1);
                    com.fasterxml.jackson.databind.JsonNode v = stats.path("minValues");
                    for (String p : minColumn) {
                        v = v.path(p);
                    }
                    min = v.isValueNode() && !v.isNull() ? v.asText() : null;
                } catch (IOException e) {
                    min = null; // unreadable statistics: as if there were none
                }
            }
            out.add(new SnapshotFiles.File(io.tributary.delta.kernel.ScanFiles.logPath(scanFile), status.getSize(),
                    status.getModificationTime(), records, min));
        });
        return new SnapshotFiles(snapshot.getVersion(), deletions[0], out);
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper STATS =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private Optional<String> unsupported(Snapshot latest) {
        if (!latest.getPartitionColumnNames().isEmpty()) {
            return Optional.of("the table at " + tableRoot + " is partitioned (by "
                    + latest.getPartitionColumnNames() + "), which a synced copy cannot follow incrementally");
        }
        String mapping = latest.getTableProperties().getOrDefault("delta.columnMapping.mode", "none");
        if (!"none".equalsIgnoreCase(mapping)) {
            return Optional.of("the table at " + tableRoot + " uses column mapping (" + mapping
                    + "), which a synced copy cannot follow incrementally");
        }
        return Optional.empty();
    }

    /**
     * Why the table cannot be followed incrementally (only rebuilt from its snapshot), if it cannot. Deletion vectors
     * are found only when a commit read adds one.
     */
    public Optional<String> unsupportedIncrementally() {
        return unsupported;
    }

    /**
     * The table's id (its metadata's): a table deleted and written anew at the same location has another, and its
     * versions count from 0 again, so a reader that follows it by version keeps the id too.
     */
    public String tableId() {
        return tableId;
    }

    /** The latest version: what the rows bring a copy up to. */
    @Override
    public long version() {
        return version;
    }

    /** When the latest version was committed (epoch milliseconds). */
    public long committedAtMs() {
        return committedAtMs;
    }

    /**
     * Reads only the named top-level columns of the data files: the rows hold just those (of the ones the table has).
     * For a reader that needs a few columns of wide rows, whose other columns would be decoded and boxed for nothing.
     * Rows of a first copy, which Kernel's scan reads, keep every column. Call it before the first row.
     */
    public TableChanges only(java.util.Set<String> topLevel) {
        if (data != null || nextFile > 0) {
            throw new IllegalStateException("the columns to read are chosen before the first row");
        }
        StructType kept = new StructType();
        for (StructField f : schema.fields()) {
            if (topLevel.contains(f.getName())) {
                kept = kept.add(f);
            }
        }
        readSchema = kept;
        return this;
    }

    /**
     * Takes the rows of the data files the commits removed with {@code dataChange = true} out of the rows their adds
     * bring (as a multiset, compared on the columns read, see {@link #only}): a file rewritten with one row changed
     * yields that row alone, a file removed outright yields nothing (its rows are not reported gone). For a reader
     * that must not count a row twice (a feature view). The removed files are read whole before the first row, held
     * in memory by their columns read. Call it before the first row; rows only, not {@link #nextBatch}.
     */
    public TableChanges netOfRewrites() {
        if (data != null || nextFile > 0) {
            throw new IllegalStateException("netting rewrites is chosen before the first row");
        }
        net = true;
        return this;
    }

    /** With {@link #netOfRewrites}: rows of added files left out because a removed file of the commits held them. */
    public long rowsNetted() {
        return rowsNetted;
    }

    /** The latest schema's columns, structs opened up. */
    public List<LeafColumn> columns() {
        return columns;
    }

    /** How many data files the rows come from (0 for a first copy, which scans the snapshot). */
    public int files() {
        return files.size();
    }

    @Override
    public boolean hasNext() {
        if (snapshotRows != null) {
            return snapshotRows.hasNext();
        }
        if (net && removedRows == null && !removed.isEmpty()) {
            removedRows = readRemoved();
        }
        while (pending.isEmpty()) {
            ColumnarBatch b = nextData();
            if (b == null) {
                return false;
            }
            add(b);
        }
        return true;
    }

    /**
     * The next batch of rows as Kernel's column vectors in the latest schema (struct columns as struct vectors; a
     * column a file lacks reads as nulls; rows the selection vector leaves out are not live), or null after the last.
     * For readers that take values straight from the vectors rather than a map per row: use either this or
     * {@link #next()} on one instance, not both.
     */
    public FilteredColumnarBatch nextBatch() {
        if (snapshotRows != null) {
            return snapshotRows.nextBatch();
        }
        if (!pending.isEmpty()) {
            throw new IllegalStateException("rows were already taken one at a time");
        }
        if (net) {
            throw new IllegalStateException("rows netted of rewrites are taken one at a time");
        }
        ColumnarBatch b = nextData();
        return b == null ? null : new FilteredColumnarBatch(b, Optional.empty());
    }

    /**
     * A value of a vector as {@link TableRows} gives it (Instant for timestamps, LocalDate for dates, maps and lists
     * for structs, maps and arrays, ...).
     */
    public static Object value(ColumnVector v, int row, io.delta.kernel.types.DataType type) {
        return TableReader.value(v, row, type);
    }

    private ColumnarBatch nextData() {
        try {
            while (true) {
                if (data != null && data.hasNext()) {
                    return data.next();
                }
                closeData();
                if (nextFile >= files.size()) {
                    return null;
                }
                LogActions.AddedFile file = files.get(nextFile++);
                FileStatus status = FileStatus.of(resolve(file.logPath()), file.size(), file.modificationTime());
                data = engine.getParquetHandler().readParquetFiles(KernelIterators.singleton(status), readSchema,
                        Optional.empty()).map(r -> r.getData());
            }
        } catch (IOException | RuntimeException e) {
            // Only on a failure is the file looked for: a stat per file would cost every small sync on S3 a request.
            if (nextFile > 0 && gone(files.get(nextFile - 1))) {
                throw ChangesUnavailableException.vacuumed(tableRoot, afterVersion, files.get(nextFile - 1).logPath());
            }
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    /** Every row of the removed files, counted by its canonical form. */
    private Map<Object, int[]> readRemoved() {
        Map<Object, int[]> out = new java.util.HashMap<>();
        for (LogActions.RemovedFile file : removed) {
            String path = resolve(file.logPath());
            try {
                long size = file.size() >= 0 ? file.size()
                        : engine.getFileSystemClient().getFileStatus(path).getSize();
                FileStatus status = FileStatus.of(path, size, 0);
                try (CloseableIterator<ColumnarBatch> rows = engine.getParquetHandler().readParquetFiles(
                        KernelIterators.singleton(status), readSchema, Optional.empty()).map(r -> r.getData())) {
                    while (rows.hasNext()) {
                        ColumnarBatch b = rows.next();
                        for (int row = 0; row < b.getSize(); row++) {
                            out.computeIfAbsent(canonical(row(b, row)), k -> new int[1])[0]++;
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                if (gone(file.logPath())) {
                    throw ChangesUnavailableException.vacuumed(tableRoot, afterVersion, file.logPath());
                }
                throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
            }
        }
        return out;
    }

    /** A row's value with binary as {@link java.nio.ByteBuffer} at any depth, so that equal rows are equal objects. */
    private static Object canonical(Object v) {
        if (v instanceof byte[] b) {
            return java.nio.ByteBuffer.wrap(b);
        }
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> out = new java.util.HashMap<>();
            m.forEach((k, x) -> out.put(k, canonical(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            l.forEach(x -> out.add(canonical(x)));
            return out;
        }
        return v;
    }

    private boolean gone(LogActions.AddedFile file) {
        return gone(file.logPath());
    }

    private boolean gone(String logPath) {
        try {
            engine.getFileSystemClient().getFileStatus(resolve(logPath));
            return false;
        } catch (java.io.FileNotFoundException e) {
            return true;
        } catch (IOException | RuntimeException e) {
            return false; // cannot tell: the original failure stands
        }
    }

    @Override
    public Map<String, Object> next() {
        if (snapshotRows != null) {
            return snapshotRows.next();
        }
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return pending.removeFirst();
    }

    private void add(ColumnarBatch b) {
        for (int row = 0; row < b.getSize(); row++) {
            Map<String, Object> out = row(b, row);
            if (removedRows != null) {
                int[] left = removedRows.get(canonical(out));
                if (left != null && left[0] > 0) {
                    // The same row in a removed file: a rewrite carried it over unchanged.
                    left[0]--;
                    rowsNetted++;
                    continue;
                }
            }
            pending.addLast(out);
        }
    }

    private static Map<String, Object> row(ColumnarBatch b, int row) {
        StructType s = b.getSchema();
        Map<String, Object> out = new LinkedHashMap<>();
        for (int c = 0; c < s.length(); c++) {
            StructField f = s.at(c);
            out.put(f.getName(), TableReader.value(b.getColumnVector(c), row, f.getDataType()));
        }
        return out;
    }

    /** A data file path as the log records it (URI-encoded, relative to the table or absolute) as a file to open. */
    private String resolve(String logPath) {
        try {
            URI uri = new URI(logPath);
            return uri.isAbsolute() ? logPath : tableRoot + "/" + uri.getPath();
        } catch (URISyntaxException e) {
            return tableRoot + "/" + logPath;
        }
    }

    static List<LeafColumn> leaves(StructType schema) {
        List<LeafColumn> out = new ArrayList<>();
        leaves(schema, new ArrayList<>(), false, out);
        return out;
    }

    private static void leaves(StructType struct, List<String> prefix, boolean nullable, List<LeafColumn> out) {
        for (StructField f : struct.fields()) {
            List<String> path = new ArrayList<>(prefix);
            path.add(f.getName());
            if (f.getDataType() instanceof StructType inner) {
                leaves(inner, path, nullable || f.isNullable(), out);
            } else {
                out.add(new LeafColumn(path, SchemaMapping.sqlType(f.getDataType()), nullable || f.isNullable()));
            }
        }
    }

    private void closeData() throws IOException {
        if (data != null) {
            data.close();
            data = null;
        }
    }

    @Override
    public void close() {
        if (snapshotRows != null) {
            snapshotRows.close();
            return;
        }
        try {
            closeData();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
