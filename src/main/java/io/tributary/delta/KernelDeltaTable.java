package io.tributary.delta;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.tributary.delta.kernel.ScanFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.jboss.logging.Logger;

/** One table: data files through parquet-avro, commits with positions through Kernel. */
final class KernelDeltaTable implements DeltaTable {
    private static final Logger LOG = Logger.getLogger(KernelDeltaTable.class);

    /** Kernel rebases blind appends by itself; beyond this we re-read the table ourselves with a back-off. */
    private static final int KERNEL_RETRIES = 10;
    /** How long a commit keeps trying through storage failures (e.g. S3 unreachable) before giving up. */
    static final long STORAGE_RETRY_MILLIS = 120_000;

    private final KernelTables tables;
    private final String path;
    private final Map<Schema, StructType> checkedRowSchemas = new ConcurrentHashMap<>();
    private final DictionaryChoices dictionaries = new DictionaryChoices();

    KernelDeltaTable(KernelTables tables, String path) {
        this.tables = tables;
        this.path = path;
    }

    DictionaryChoices dictionaries() {
        return dictionaries;
    }

    @Override
    public String location() {
        return path;
    }

    @Override
    public Map<PartitionKey, Long> positions() {
        return PositionDomains.read(tables.latest(path));
    }

    @Override
    public Map<PartitionKey, PartitionPosition> positionDetails() {
        return PositionDomains.details(tables.latest(path));
    }

    @Override
    public DataFile writeDataFile(Iterable<GenericRecord> rows) {
        Iterator<GenericRecord> it = rows.iterator();
        if (!it.hasNext()) {
            throw new IllegalArgumentException("a data file needs at least one row");
        }
        GenericRecord first = it.next();
        StructType schema = checkedRowSchemas.computeIfAbsent(first.getSchema(), this::checkRowSchema);
        Iterable<GenericRecord> all = () -> new Iterator<>() {
            private boolean firstDone;

            @Override
            public boolean hasNext() {
                return !firstDone || it.hasNext();
            }

            @Override
            public GenericRecord next() {
                if (!firstDone) {
                    firstDone = true;
                    return first;
                }
                return it.next();
            }
        };
        return tables.dataFiles().write(path, first.getSchema(), schema, all, dictionaries);
    }

    private StructType checkRowSchema(Schema rowSchema) {
        StructType rowType = SchemaMapping.toDelta(rowSchema);
        StructType tableType = tables.latest(path).getSchema();
        if (!rowType.isWriteCompatible(tableType)) {
            throw new IllegalArgumentException("rows of schema " + SchemaMapping.sqlType(rowType)
                    + " cannot be written to " + path + ", whose schema is " + SchemaMapping.sqlType(tableType));
        }
        return tableType;
    }

    @Override
    public long commit(List<DataFile> files, Map<PartitionKey, OffsetRange> ranges) {
        ranges.forEach((p, r) -> {
            if (r.next() < r.from()) {
                throw new IllegalArgumentException("offset range of " + p + " ends (" + r.next() + ") before it starts (" + r.from() + ")");
            }
        });
        String commitId = UUID.randomUUID().toString();
        long deadline = System.currentTimeMillis() + STORAGE_RETRY_MILLIS;
        long firstReadVersion = -1;
        boolean mayHaveLanded = false;
        RuntimeException lastFailure = null;
        for (int attempt = 0; ; attempt++) {
            if (attempt > 0 && lastFailure != null) {
                if (System.currentTimeMillis() > deadline) {
                    throw lastFailure;
                }
                sleep(Math.min(5_000, 100L << Math.min(attempt, 6)));
            }
            try {
                Snapshot snapshot = tables.latest(path);
                if (firstReadVersion < 0) {
                    firstReadVersion = snapshot.getVersion();
                }
                if (mayHaveLanded) {
                    // An earlier attempt failed after it may have written its commit file (or its request may still
                    // be applied late); committing again would duplicate the data, so look for it first, every time.
                    Optional<Long> landed = CommitLog.find(tables.storage(), path, firstReadVersion + 1, snapshot.getVersion(),
                            marker(commitId, files, ranges));
                    if (landed.isPresent()) {
                        return landed.get();
                    }
                }
                Map<PartitionKey, PartitionPosition> current = PositionDomains.details(snapshot);
                for (Map.Entry<PartitionKey, OffsetRange> r : ranges.entrySet()) {
                    PartitionPosition position = current.get(r.getKey());
                    if (position != null && !continues(position, r.getValue())) {
                        Map<PartitionKey, Long> next = new java.util.TreeMap<>();
                        current.forEach((k, v) -> next.put(k, v.next()));
                        throw new PositionConflictException(next);
                    }
                }
                if (files.isEmpty() && ranges.isEmpty()) {
                    return snapshot.getVersion();
                }
                TransactionCommitResult result = commitOnce(snapshot, files, ranges, commitId, current);
                tables.runHooks(result);
                return result.getVersion();
            } catch (PositionConflictException | NoSuchTableException | IllegalArgumentException e) {
                throw e;
            } catch (ConcurrentWriteException e) {
                // A concurrent commit set the same position domain (or changed the metadata): nothing of ours was
                // written; re-check the positions against the new snapshot at once.
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                lastFailure = null;
            } catch (RuntimeException e) {
                // Storage failures, or Kernel giving up or not knowing whether its write landed.
                lastFailure = e;
                mayHaveLanded |= firstReadVersion >= 0;
            }
        }
    }

    /**
     * Whether the range may follow the table's position: it starts there and belongs to the same topic (a position
     * without a topic id adopts the range's), or it is a reset of exactly the position the writer saw.
     */
    private static boolean continues(PartitionPosition position, OffsetRange range) {
        if (range.replaces() != null) {
            return position.topicId().equals(range.replaces().previousTopicId())
                    && position.next() == range.replaces().previousNext();
        }
        return position.next() == range.from()
                && (range.topicId() == null || position.topicId().isEmpty() || position.topicId().get().equals(range.topicId()));
    }

    /**
     * {@code prior} holds what the snapshot records (decode failure counts, topic ids); each range's failures are
     * added. Kernel may rebase this commit onto a newer snapshot only when no one else changed our partitions' domains,
     * so the sums stay right.
     */
    private TransactionCommitResult commitOnce(Snapshot snapshot, List<DataFile> files, Map<PartitionKey, OffsetRange> ranges,
            String commitId, Map<PartitionKey, PartitionPosition> prior) {
        Engine engine = tables.engine();
        Transaction txn = snapshot.buildUpdateTableTransaction(KernelTables.ENGINE_INFO, Operation.WRITE)
                .withMaxRetries(KERNEL_RETRIES)
                .build(engine);
        ranges.forEach((p, r) -> txn.addDomainMetadata(PositionDomains.domain(p),
                PositionDomains.config(p, r, commitId, prior.get(p))));
        Row state = txn.getTransactionState(engine);
        DataWriteContext context = Transaction.getWriteContext(engine, state, Map.of());
        StructType schema = snapshot.getSchema();
        long now = System.currentTimeMillis();
        List<DataFileStatus> statuses = new ArrayList<>(files.size());
        for (DataFile f : files) {
            Optional<DataFileStatistics> stats = f.statsJson() == null ? Optional.empty()
                    : DataFileStatistics.deserializeFromJson(f.statsJson(), schema);
            statuses.add(new DataFileStatus(path + "/" + f.path(), f.sizeBytes(), now, stats));
        }
        CloseableIterator<Row> actions = Transaction.generateAppendActions(engine, state, iterator(statuses), context);
        List<Row> materialized = new ArrayList<>();
        actions.forEachRemaining(materialized::add);
        return txn.commit(engine, CloseableIterable.inMemoryIterable(iterator(materialized)));
    }

    /** What identifies this commit in the log: its id in the position domains, else its first data file's name. */
    private static String marker(String commitId, List<DataFile> files, Map<PartitionKey, OffsetRange> ranges) {
        return ranges.isEmpty() && !files.isEmpty() ? files.get(0).path() : commitId;
    }

    @Override
    public Status status() {
        Snapshot snapshot = tables.latest(path);
        Engine engine = tables.engine();
        long records = 0;
        Scan scan = snapshot.getScanBuilder().build();
        try (CloseableIterator<FilteredColumnarBatch> batches = scan.getScanFiles(engine, true)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    while (rows.hasNext()) {
                        String stats = ScanFiles.statsJson(ScanFiles.addFile(rows.next()));
                        if (stats != null) {
                            records += DataFileStatistics.getNumRecords(stats).orElse(0L);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the file list of " + path + " failed", e);
        }
        long decodeFailures = PositionDomains.decodeFailures(snapshot).values().stream().mapToLong(Long::longValue).sum();
        return new Status(snapshot.getVersion(), Optional.of(Instant.ofEpochMilli(snapshot.getTimestamp(engine))), records,
                decodeFailures);
    }

    @Override
    public Optional<Long> evolveSchema(Schema rowSchema) {
        return new SchemaEvolution(tables, path).evolve(SchemaMapping.toDelta(rowSchema));
    }

    @Override
    public Optional<Long> compact(long targetFileBytes) {
        if (targetFileBytes <= 0) {
            throw new IllegalArgumentException("targetFileBytes must be positive, got " + targetFileBytes);
        }
        return new TableCompaction(tables, path).run(targetFileBytes);
    }

    @Override
    public VacuumResult vacuum(java.time.Duration retention) {
        return new TableVacuum(tables, path).run(retention, System.currentTimeMillis());
    }

    @Override
    public Schema rowSchema() {
        return AvroRowSchema.of(tables.latest(path).getSchema());
    }

    @Override
    public Optional<String> domainMetadata(String domain) {
        return tables.latest(path).getDomainMetadata(domain);
    }

    @Override
    public TableRows rowsAddedSince(long version) {
        java.util.Set<String> before = TableReader.logPaths(tables.engine(), tables.at(path, version));
        return new TableReader(tables.engine(), tables.latest(path), p -> !before.contains(p), null);
    }

    @Override
    public long commitExclusive(long basedOn, List<DataFile> files, Map<String, String> domainMetadata) {
        return ExclusiveCommit.commit(tables, path, basedOn, files, domainMetadata);
    }

    @Override
    public void discard(List<DataFile> files) {
        for (DataFile f : files) {
            try {
                tables.storage().delete(path + "/" + f.path());
            } catch (IOException | RuntimeException e) {
                LOG.debugf(e, "could not remove the uncommitted file %s", f.path());
            }
        }
    }

    private static <T> CloseableIterator<T> iterator(List<T> list) {
        Iterator<T> it = list.iterator();
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public T next() {
                if (!it.hasNext()) {
                    throw new NoSuchElementException();
                }
                return it.next();
            }

            @Override
            public void close() {}
        };
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying a commit", e);
        }
    }
}
