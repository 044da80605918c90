package io.tributary.delta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.DataFileStatus;
import io.tributary.delta.kernel.KernelActions;
import io.tributary.delta.kernel.KernelIterators;
import io.tributary.delta.kernel.ScanFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * {@link RowRewrites} with Kernel: the files to read come from the statistics, each is read on its own (so a
 * replacement holds exactly the rows of the file it replaces, in order) and the remove and add actions, with
 * {@code dataChange=true} since values change, are built with Kernel's internal classes as compaction's are.
 */
final class RowRewrite {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KernelTables tables;
    private final String path;

    RowRewrite(KernelTables tables, String path) {
        this.tables = tables;
        this.path = path;
    }

    long count(String column, String alwaysSet) {
        Snapshot snapshot = tables.latest(path);
        long[] count = new long[1];
        List<String> unknown = new ArrayList<>();
        LiveFiles.forEach(tables.engine(), snapshot, true, scanFile -> {
            Row add = ScanFiles.addFile(scanFile);
            long set = setRows(ScanFiles.statsJson(add), column, alwaysSet);
            if (set < 0) {
                unknown.add(add.getString(0));
            } else {
                count[0] += set;
            }
        });
        if (!unknown.isEmpty()) {
            Set<String> paths = Set.copyOf(unknown);
            try (TableReader rows = new TableReader(tables.engine(), snapshot, paths::contains, Set.of(column))) {
                while (rows.hasNext()) {
                    if (rows.next().get(column) != null) {
                        count[0]++;
                    }
                }
            }
        }
        return count[0];
    }

    TableRows read(String column, String alwaysSet, Set<String> columns) {
        Snapshot snapshot = tables.latest(path);
        Set<String> candidates = new java.util.HashSet<>();
        LiveFiles.forEach(tables.engine(), snapshot, true, scanFile -> {
            Row add = ScanFiles.addFile(scanFile);
            if (setRows(ScanFiles.statsJson(add), column, alwaysSet) != 0) {
                candidates.add(add.getString(0));
            }
        });
        return new TableReader(tables.engine(), snapshot, candidates::contains, columns);
    }

    Optional<Long> rewrite(String column, String alwaysSet, Schema rowSchema, RowRewrites.RowChange change,
            WriteGuard guard) {
        Engine engine = tables.engine();
        Snapshot snapshot = tables.latest(path);
        StructType schema = snapshot.getSchema();
        if (!SchemaMapping.toDelta(rowSchema).isWriteCompatible(schema)) {
            throw new IllegalArgumentException("rows of schema " + SchemaMapping.sqlType(SchemaMapping.toDelta(rowSchema))
                    + " cannot be written to " + path + ", whose schema is " + SchemaMapping.sqlType(schema));
        }
        Map<String, Row> candidates = new LinkedHashMap<>();
        LiveFiles.forEach(engine, snapshot, true, scanFile -> {
            Row add = ScanFiles.addFile(scanFile);
            if (setRows(ScanFiles.statsJson(add), column, alwaysSet) != 0) {
                candidates.put(add.getString(0), add);
            }
        });
        List<DataFile> written = new ArrayList<>();
        List<Row> actions = new ArrayList<>();
        URI root = URI.create(path.endsWith("/") ? path : path + "/");
        long now = System.currentTimeMillis();
        try {
            for (Map.Entry<String, Row> file : candidates.entrySet()) {
                List<GenericRecord> rows = new ArrayList<>();
                boolean changed = false;
                try (TableReader reader = new TableReader(engine, snapshot, file.getKey()::equals, null)) {
                    while (reader.hasNext()) {
                        GenericRecord row = AvroRows.record(reader.next(), rowSchema);
                        // A set column marks the rows to look at; every other row is copied as it was.
                        if (row.get(column) != null && change.apply(row)) {
                            changed = true;
                        }
                        rows.add(row);
                    }
                }
                if (!changed || rows.isEmpty()) {
                    continue;
                }
                DataFile replacement = tables.dataFiles().write(path, rowSchema, schema, rows);
                written.add(replacement);
                actions.add(KernelActions.remove(file.getValue(), now, true));
                DataFileStatus status = new DataFileStatus(path + "/" + replacement.path(), replacement.sizeBytes(),
                        now, DataFileStatistics.deserializeFromJson(replacement.statsJson(), schema));
                actions.add(KernelActions.add(schema, root, status, true));
            }
            if (actions.isEmpty()) {
                return Optional.empty();
            }
            Optional<Long> committed = guard.run(() -> {
                Transaction txn = snapshot.buildUpdateTableTransaction(KernelTables.ENGINE_INFO, Operation.MANUAL_UPDATE)
                        .build(engine);
                TransactionCommitResult result = txn.commit(engine,
                        CloseableIterable.inMemoryIterable(KernelIterators.of(actions.iterator())));
                tables.runHooks(result, io.tributary.delta.kernel.Snapshots.domainCount(snapshot));
                return result.getVersion();
            });
            if (committed.isEmpty()) {
                KernelDeltaTable.discard(tables, path, written);
                throw new RowRewrites.StreamGoneException(path);
            }
            return committed;
        } catch (ConcurrentWriteException e) {
            // A compaction (or another rewrite) removed one of these files first: ours would duplicate its rows.
            KernelDeltaTable.discard(tables, path, written);
            throw new TableChangedException(snapshot.getVersion(), tables.latest(path).getVersion());
        } catch (RuntimeException e) {
            KernelDeltaTable.discard(tables, path, written);
            throw e;
        }
    }

    /**
     * Rows of a file whose {@code column} is set, from its statistics ({@code numRecords} minus the null count of
     * {@code column.alwaysSet}); -1 when the statistics do not say.
     */
    private static long setRows(String statsJson, String column, String alwaysSet) {
        if (statsJson == null) {
            return -1;
        }
        JsonNode stats;
        try {
            stats = JSON.readTree(statsJson);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable statistics in the log of a data file", e);
        }
        JsonNode records = stats.path("numRecords");
        JsonNode nulls = stats.path("nullCount").path(column).path(alwaysSet);
        if (!records.isNumber() || !nulls.isNumber()) {
            return -1;
        }
        return records.asLong() - nulls.asLong();
    }
}
