package io.tributary.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.io.IOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.jboss.logging.Logger;

/**
 * One table, every role: data files through parquet-avro, reads of the latest snapshot, and the commits and maintenance
 * each done by a class of its own ({@link PositionCommit}, {@link ExclusiveCommit}, {@link SchemaEvolution},
 * {@link TableCompaction}, {@link TableVacuum}).
 */
final class KernelDeltaTable implements DeltaTable {
    private static final Logger LOG = Logger.getLogger(KernelDeltaTable.class);

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
    public Status status() {
        return tables.status(path, tables.latest(path));
    }

    @Override
    public Summary summary() {
        return tables.summary(path, tables.latest(path));
    }

    @Override
    public long version() {
        return tables.latest(path).getVersion();
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

    @Override
    public DataFile writeRows(RowSource rows) {
        StructType schema = checkedRowSchemas.computeIfAbsent(rows.rowSchema(), this::checkRowSchema);
        return tables.dataFiles().write(path, schema, rows, dictionaries);
    }

    private StructType checkRowSchema(Schema rowSchema) {
        StructType rowType = SchemaMapping.toDelta(rowSchema);
        StructType tableType = tables.latest(path).getSchema();
        if (rowType.isWriteCompatible(tableType)) {
            return tableType;
        }
        // Another writer widened the table before this handle was opened (another server's pipeline met a new
        // registry version first): rows of the older schema fit with the new fields NULL, as they do through a handle
        // opened before the widening, whose check saw the older table.
        StructType part = partOf(rowType, tableType);
        if (part == null) {
            throw new IllegalArgumentException("rows of schema " + SchemaMapping.sqlType(rowType)
                    + " cannot be written to " + path + ", whose schema is " + SchemaMapping.sqlType(tableType));
        }
        return part;
    }

    /**
     * The table's type of the fields rows of {@code rowType} hold, when such rows fit the table with fields missing:
     * each of their fields is the table's (structs compared the same way, field by field), and each field of the
     * table they lack is nullable. Null when they do not fit.
     */
    static StructType partOf(StructType rowType, StructType tableType) {
        List<StructField> fields = new java.util.ArrayList<>();
        for (StructField rowField : rowType.fields()) {
            int i = tableType.indexOf(rowField.getName());
            if (i < 0) {
                return null;
            }
            StructField tableField = tableType.fields().get(i);
            DataType type;
            if (rowField.getDataType() instanceof StructType rowStruct
                    && tableField.getDataType() instanceof StructType tableStruct) {
                type = partOf(rowStruct, tableStruct);
            } else {
                type = rowField.getDataType().isWriteCompatible(tableField.getDataType())
                        ? tableField.getDataType() : null;
            }
            if (type == null || rowField.isNullable() && !tableField.isNullable()) {
                return null;
            }
            fields.add(new StructField(tableField.getName(), type, tableField.isNullable(), tableField.getMetadata()));
        }
        for (StructField tableField : tableType.fields()) {
            if (rowType.indexOf(tableField.getName()) < 0 && !tableField.isNullable()) {
                return null;
            }
        }
        return new StructType(fields);
    }

    @Override
    public void discard(List<DataFile> files) {
        discard(tables, path, files);
    }

    /** Best effort, for every writer of files it will not commit (a stream, a merge, a compaction that lost). */
    static void discard(KernelTables tables, String path, List<DataFile> files) {
        for (DataFile f : files) {
            try {
                tables.storage().delete(path + "/" + f.path());
            } catch (IOException | RuntimeException e) {
                LOG.debugf(e, "could not remove the uncommitted file %s", f.path());
            }
        }
    }

    @Override
    public Optional<Long> evolveSchema(Schema rowSchema) {
        return new SchemaEvolution(tables, path).evolve(SchemaMapping.toDelta(rowSchema));
    }

    @Override
    public long commit(List<DataFile> files, Map<PartitionKey, OffsetRange> ranges) {
        return PositionCommit.commit(tables, path, files, ranges);
    }

    @Override
    public TableRows rowsAddedSince(long version) {
        Set<String> before = TableReader.logPaths(tables.engine(), tables.at(path, version));
        return new TableReader(tables.engine(), tables.latest(path), p -> !before.contains(p), null);
    }

    @Override
    public long commitExclusive(long basedOn, List<DataFile> files, Map<String, String> domainMetadata) {
        return ExclusiveCommit.commit(tables, path, basedOn, files, domainMetadata);
    }

    @Override
    public Optional<Long> compact(long targetFileBytes) {
        if (targetFileBytes <= 0) {
            throw new IllegalArgumentException("targetFileBytes must be positive, got " + targetFileBytes);
        }
        return new TableCompaction(tables, path).run(targetFileBytes);
    }

    @Override
    public VacuumResult vacuum(Duration retention) {
        return new TableVacuum(tables, path).run(retention, System.currentTimeMillis());
    }

    @Override
    public List<String> forgetProducersIdleSince(java.time.Instant cutoff) {
        return new ProducerExpiry(tables, path).run(cutoff);
    }

    @Override
    public long rowsWithColumnSet(String column, String alwaysSet) {
        return new RowRewrite(tables, path).count(column, alwaysSet);
    }

    @Override
    public TableRows readFilesWithColumnSet(String column, String alwaysSet, Set<String> columns) {
        return new RowRewrite(tables, path).read(column, alwaysSet, columns);
    }

    @Override
    public Optional<Long> rewriteRows(String column, String alwaysSet, Schema rowSchema, RowChange change,
            WriteGuard guard) {
        return new RowRewrite(tables, path).rewrite(column, alwaysSet, rowSchema, change, guard);
    }
}
