package io.tributary.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.TableAlreadyExistsException;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.hook.PostCommitHook;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.tributary.delta.kernel.ScanFiles;
import io.tributary.delta.kernel.TableIds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.Schema;
import org.jboss.logging.Logger;

/** {@link Tables} on Delta Kernel's default engine ({@link PureJavaEngine}), with all I/O through our {@link Storage}. */
final class KernelTables implements Tables {
    static final String ENGINE_INFO = "tributary";
    private static final Logger LOG = Logger.getLogger(KernelTables.class);

    /**
     * domainMetadata carries the positions; the checkpoint interval is Delta's default, written down so the table
     * says what it does.
     */
    private static final Map<String, String> TABLE_PROPERTIES = Map.of(
            "delta.feature.domainMetadata", "supported",
            "delta.checkpointInterval", "10");

    /** The warehouse's marker file, at its root (see {@link Tables#warehouseMarker}). */
    private static final String MARKER = ".tributary-registry";

    private final String root;
    private final Storage storage;
    private final Engine engine;
    private final ParquetDataFiles dataFiles;
    /** The newest status computed per table path (see {@link #status(String, Snapshot)}); one small entry per table. */
    private final Map<String, KnownStatus> statuses = new ConcurrentHashMap<>();

    private record KnownStatus(String tableId, TableSnapshot.Status status) {}

    KernelTables(Warehouse warehouse, Storage storage) {
        this.storage = storage;
        this.root = strip(storage.qualify(warehouse.root()));
        this.engine = new PureJavaEngine(new StorageFileIO(storage));
        this.dataFiles = new ParquetDataFiles(storage);
    }

    private static String strip(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    String qualify(String location) {
        return strip(storage.qualify(location));
    }

    @Override
    public String defaultLocation(String catalog, String schema, String table) {
        return root + "/" + catalog + "/" + schema + "/" + table;
    }

    @Override
    public Optional<String> warehouseMarker() {
        String path = root + "/" + MARKER;
        try {
            if (storage.stat(path).isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new String(storage.read(path), java.nio.charset.StandardCharsets.UTF_8).trim());
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + path + " failed", e);
        }
    }

    @Override
    public String claimWarehouseMarker(String marker) {
        String path = root + "/" + MARKER;
        try {
            storage.putIfAbsent(path, (marker + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return marker;
        } catch (java.nio.file.FileAlreadyExistsException e) {
            return warehouseMarker().orElseThrow(() -> new UncheckedIOException(path + " exists but cannot be read",
                    e));
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + path + " failed", e);
        }
    }

    @Override
    public boolean exists(String location) {
        try {
            return storage.hasChildren(qualify(location) + "/_delta_log");
        } catch (IOException e) {
            throw new UncheckedIOException("checking for a Delta log at " + location + " failed", e);
        }
    }

    @Override
    public DeltaTable create(String location, Schema rowSchema, Map<PartitionKey, Long> startPositions,
            Map<String, String> topicIds) {
        String path = qualify(location);
        StructType schema = SchemaMapping.toDelta(rowSchema);
        if (exists(path)) {
            throw new TableExistsException(path);
        }
        try {
            Transaction txn = TableManager.buildCreateTableTransaction(path, schema, ENGINE_INFO)
                    .withTableProperties(TABLE_PROPERTIES)
                    .build(engine);
            String commitId = UUID.randomUUID().toString();
            startPositions.forEach((p, next) -> txn.addDomainMetadata(PositionDomains.domain(p), PositionDomains.config(
                    p, next, commitId, 0, Optional.ofNullable(topicIds.get(p.topic())), false, Optional.empty())));
            TransactionCommitResult result = txn.commit(engine, CloseableIterable.emptyIterable());
            runHooks(result, startPositions.size());
        } catch (TableAlreadyExistsException | ConcurrentWriteException e) {
            throw new TableExistsException(path);
        }
        return new KernelDeltaTable(this, path);
    }

    @Override
    public DeltaTable open(String location) {
        String path = qualify(location);
        latest(path);
        return new KernelDeltaTable(this, path);
    }

    @Override
    public void delete(String location) {
        String path = qualify(location);
        try {
            // The log goes first: once it is gone no reader sees a table whose data files are half deleted.
            storage.deleteRecursively(path + "/_delta_log");
            storage.deleteRecursively(path);
        } catch (IOException e) {
            throw new UncheckedIOException("deleting the table at " + path + " failed", e);
        }
    }

    @Override
    public List<Column> columns(String location) {
        List<Column> out = new ArrayList<>();
        for (StructField f : latest(qualify(location)).getSchema().fields()) {
            out.add(new Column(f.getName(), SchemaMapping.sqlType(f.getDataType()), f.isNullable()));
        }
        return out;
    }

    @Override
    public TableRows read(String location) {
        return new TableReader(engine, latest(qualify(location)));
    }

    @Override
    public TableRows read(String location, java.util.Set<String> columns) {
        return new TableReader(engine, latest(qualify(location)), path -> true, columns);
    }

    @Override
    public TableChanges changesSince(String location, long afterVersion) {
        return TableChanges.since(engine, latest(qualify(location)), afterVersion);
    }

    @Override
    public TableChanges changesBetween(String location, long afterVersion, long upToVersion) {
        String path = qualify(location);
        Snapshot upTo;
        try {
            upTo = at(path, upToVersion);
        } catch (io.delta.kernel.exceptions.KernelException e) {
            // Kernel names no exception type for it: a version whose commit file was cleaned up (log retention).
            if (e.getMessage() != null && e.getMessage().contains("transaction log has been truncated")) {
                throw ChangesUnavailableException.logCleanedUp(path.replaceAll("/+$", ""), afterVersion,
                        "version " + upToVersion + " can no longer be loaded");
            }
            throw e;
        }
        return TableChanges.since(engine, upTo, afterVersion);
    }

    @Override
    public SnapshotFiles snapshotFiles(String location, long version, List<String> minColumn) {
        String path = qualify(location);
        return TableChanges.files(engine, version < 0 ? latest(path) : at(path, version), minColumn);
    }

    @Override
    public TableChanges changesOf(String location, long version, List<SnapshotFiles.File> files) {
        return TableChanges.of(engine, at(qualify(location), version), files);
    }

    @Override
    public TableSnapshot.Summary summary(String location) {
        String path = qualify(location);
        return summary(path, latest(path));
    }

    TableSnapshot.Summary summary(String path, Snapshot snapshot) {
        return new TableSnapshot.Summary(status(path, snapshot), PositionDomains.details(snapshot));
    }

    /**
     * The snapshot's version, commit time, rows and decode failures. The rows are the sum of every live file's
     * statistics, a walk over all of them; a version never changes, so the last one computed per table is kept and a
     * status of the same version of the same table (a stream's GET while nothing was committed) costs only the log's
     * read.
     */
    TableSnapshot.Status status(String path, Snapshot snapshot) {
        // The table's id too: a table deleted and created again at the path reaches the same versions.
        String tableId = TableIds.of(snapshot);
        KnownStatus known = statuses.get(path);
        if (known != null && known.status().version() == snapshot.getVersion() && known.tableId().equals(tableId)) {
            return known.status();
        }
        AtomicLong records = new AtomicLong();
        LiveFiles.forEach(engine, snapshot, true, scanFile -> {
            String stats = ScanFiles.statsJson(ScanFiles.addFile(scanFile));
            if (stats != null) {
                records.addAndGet(DataFileStatistics.getNumRecords(stats).orElse(0L));
            }
        });
        long decodeFailures = PositionDomains.decodeFailures(snapshot).values().stream().mapToLong(Long::longValue)
                .sum();
        TableSnapshot.Status status = new TableSnapshot.Status(snapshot.getVersion(),
                Optional.of(Instant.ofEpochMilli(snapshot.getTimestamp(engine))), records.get(), decodeFailures);
        statuses.put(path, new KnownStatus(tableId, status));
        return status;
    }

    Snapshot latest(String path) {
        try {
            return TableManager.loadSnapshot(path).build(engine);
        } catch (TableNotFoundException e) {
            throw new NoSuchTableException(path);
        }
    }

    Snapshot at(String path, long version) {
        try {
            return TableManager.loadSnapshot(path).atVersion(version).build(engine);
        } catch (TableNotFoundException e) {
            throw new NoSuchTableException(path);
        }
    }

    @Override
    public List<DataFileSummary> dataFiles(String location) {
        return DataFileSummaries.of(engine, latest(qualify(location)));
    }

    @Override
    public TableHistory history(String location, java.time.Instant since, int maxCommits) {
        String path = qualify(location);
        return CommitHistory.read(storage, path, latest(path).getVersion(), since, maxCommits);
    }

    Engine engine() {
        return engine;
    }

    Storage storage() {
        return storage;
    }

    ParquetDataFiles dataFiles() {
        return dataFiles;
    }

    /**
     * Above this many domains in a table (one per Kafka partition or direct-ingest producer, plus a few), its commits
     * write no version checksum ({@code .crc}). Kernel's checksum holds every domain, and Kernel 4.4 serialises it in
     * time quadratic in their number: with 2,000 domains a commit took 0.4–0.8 s instead of 20–200 ms (on the local
     * disk and on S3Proxy, {@code bench/domains}). Without one a reader replays the log since the last checkpoint,
     * which costs an S3 warehouse about 60 ms more per snapshot with few domains and less than the checksum from about
     * 500 on. {@code tributary.delta.checksum-max-domains} overrides it (the bench's baseline takes every checksum).
     */
    static final int CHECKSUM_MAX_DOMAINS = Integer.getInteger("tributary.delta.checksum-max-domains", 500);

    /**
     * Checkpoints (every 10th version) and checksums are Kernel's post-commit hooks. They only speed up reads, so a
     * failure (e.g. two writers checkpointing the same version) must not fail a commit that already landed.
     * {@code domains}: how many domains the committed version holds, about (see {@link #CHECKSUM_MAX_DOMAINS}).
     */
    void runHooks(TransactionCommitResult result, int domains) {
        for (PostCommitHook hook : result.getPostCommitHooks()) {
            if (domains > CHECKSUM_MAX_DOMAINS && (hook.getType() == PostCommitHook.PostCommitHookType.CHECKSUM_SIMPLE
                    || hook.getType() == PostCommitHook.PostCommitHookType.CHECKSUM_FULL)) {
                continue;
            }
            try {
                hook.threadSafeInvoke(engine);
            } catch (IOException | RuntimeException e) {
                LOG.debugf(e, "post-commit hook %s failed at version %d", hook.getType(), result.getVersion());
            }
        }
    }
}
