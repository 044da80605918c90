package io.tributary.delta;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.tributary.delta.kernel.KernelIterators;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The add actions of data files we wrote, through Kernel's public append API, for both ways we append (a stream's
 * commit with positions, the backfill's exclusive one). Call it after the transaction's domain metadata is set: the
 * transaction state is read here.
 */
final class AppendActions {
    private AppendActions() {}

    /** {@code schema}: the table schema the files' statistics were computed against. */
    static CloseableIterable<Row> of(Engine engine, Transaction txn, String path, StructType schema, List<DataFile> files) {
        Row state = txn.getTransactionState(engine);
        DataWriteContext context = Transaction.getWriteContext(engine, state, Map.of());
        long now = System.currentTimeMillis();
        List<DataFileStatus> statuses = new ArrayList<>(files.size());
        for (DataFile f : files) {
            Optional<DataFileStatistics> stats = f.statsJson() == null ? Optional.empty()
                    : DataFileStatistics.deserializeFromJson(f.statsJson(), schema);
            statuses.add(new DataFileStatus(path + "/" + f.path(), f.sizeBytes(), now, stats));
        }
        // Materialised: Kernel may iterate the actions again when it retries the commit.
        List<Row> actions = new ArrayList<>();
        try (CloseableIterator<Row> it = Transaction.generateAppendActions(engine, state,
                KernelIterators.of(statuses.iterator()), context)) {
            it.forEachRemaining(actions::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return CloseableIterable.inMemoryIterable(KernelIterators.of(actions.iterator()));
    }
}
