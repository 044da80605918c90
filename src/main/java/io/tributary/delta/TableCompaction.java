package io.tributary.delta;

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
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * Rewrites small data files into larger ones without changing any row: one commit removes the small files and adds
 * the new ones, both with {@code dataChange=false} so streaming readers skip the rewrite. Kernel's public API only
 * appends, so the add and remove actions are built with Kernel's internal action classes. Kernel's conflict checker
 * lets concurrent appends through (they touch no removed file) and fails a concurrent rewrite of the same files.
 */
final class TableCompaction {

    private final KernelTables tables;
    private final String path;

    TableCompaction(KernelTables tables, String path) {
        this.tables = tables;
        this.path = path;
    }

    Optional<Long> run(long targetFileBytes) {
        Engine engine = tables.engine();
        Snapshot snapshot = tables.latest(path);
        List<List<Row>> bins = bins(smallFiles(snapshot, engine, targetFileBytes), targetFileBytes);
        if (bins.isEmpty()) {
            return Optional.empty();
        }
        StructType schema = snapshot.getSchema();
        Schema avro = AvroRows.schema(schema);
        List<DataFile> written = new ArrayList<>();
        List<Row> actions = new ArrayList<>();
        URI root = URI.create(path.endsWith("/") ? path : path + "/");
        long now = System.currentTimeMillis();
        for (List<Row> bin : bins) {
            Set<String> paths = new HashSet<>();
            for (Row add : bin) {
                paths.add(add.getString(0));
                actions.add(KernelActions.remove(add, now));
            }
            DataFile file;
            try (TableReader rows = new TableReader(engine, snapshot, paths::contains)) {
                Iterator<GenericRecord> records = new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return rows.hasNext();
                    }

                    @Override
                    public GenericRecord next() {
                        return AvroRows.record(rows.next(), avro);
                    }
                };
                file = tables.dataFiles().write(path, avro, schema, () -> records);
            }
            written.add(file);
            DataFileStatus status = new DataFileStatus(path + "/" + file.path(), file.sizeBytes(), now,
                    DataFileStatistics.deserializeFromJson(file.statsJson(), schema));
            actions.add(KernelActions.add(schema, root, status));
        }
        try {
            Transaction txn = snapshot.buildUpdateTableTransaction(KernelTables.ENGINE_INFO, Operation.MANUAL_UPDATE).build(engine);
            TransactionCommitResult result = txn.commit(engine, CloseableIterable.inMemoryIterable(KernelIterators.of(actions.iterator())));
            tables.runHooks(result, io.tributary.delta.kernel.Snapshots.domainCount(snapshot));
            return Optional.of(result.getVersion());
        } catch (ConcurrentWriteException e) {
            // Another compaction removed some of these files first; ours would duplicate rows. Drop our files.
            KernelDeltaTable.discard(tables, path, written);
            return Optional.empty();
        }
    }

    /** The add actions of files below half the target without deletion vectors. */
    private static List<Row> smallFiles(Snapshot snapshot, Engine engine, long targetFileBytes) {
        List<Row> small = new ArrayList<>();
        LiveFiles.forEach(engine, snapshot, true, scanFile -> {
            Row add = ScanFiles.addFile(scanFile);
            if (KernelActions.isPlainFileSmallerThan(add, targetFileBytes / 2)) {
                small.add(add);
            }
        });
        return small;
    }

    /** Groups files into bins of up to the target size; a bin of one file would rewrite it for nothing. */
    private static List<List<Row>> bins(List<Row> files, long targetFileBytes) {
        List<List<Row>> bins = new ArrayList<>();
        List<Row> current = new ArrayList<>();
        long size = 0;
        for (Row f : files) {
            long s = f.getLong(2);
            if (!current.isEmpty() && size + s > targetFileBytes) {
                bins.add(current);
                current = new ArrayList<>();
                size = 0;
            }
            current.add(f);
            size += s;
        }
        bins.add(current);
        bins.removeIf(b -> b.size() < 2);
        return bins;
    }
}
