package io.tributary.delta;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.tributary.delta.kernel.KernelIterators;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * A commit that lands only if nothing else was committed after the version it was based on. Kernel would rebase a
 * plain append over concurrent commits; a writer whose files were filtered against that version (the backfill
 * merge) must not be rebased, because a concurrent stream commit may carry rows it would now duplicate.
 *
 * <p>Two mechanisms make Kernel fail instead of rebasing: no commit retries, so a taken version is a failure
 * rather than a rebase; and every position domain re-set to its value at the base version, so even a rebase
 * attempt conflicts with any stream commit (each sets the domain of every partition it wrote).
 */
final class ExclusiveCommit {
    private ExclusiveCommit() {}

    static long commit(KernelTables tables, String path, long basedOn, List<DataFile> files, Map<String, String> domains) {
        Engine engine = tables.engine();
        Snapshot base = tables.at(path, basedOn);
        Transaction txn = base.buildUpdateTableTransaction(KernelTables.ENGINE_INFO, Operation.WRITE)
                .withMaxRetries(0)
                .build(engine);
        String commitId = UUID.randomUUID().toString();
        Map<PartitionKey, Long> decodeFailures = PositionDomains.decodeFailures(base);
        PositionDomains.read(base).forEach((p, next) -> txn.addDomainMetadata(PositionDomains.domain(p),
                PositionDomains.config(p, next, commitId, decodeFailures.getOrDefault(p, 0L))));
        domains.forEach(txn::addDomainMetadata);
        Row state = txn.getTransactionState(engine);
        DataWriteContext context = Transaction.getWriteContext(engine, state, Map.of());
        StructType schema = base.getSchema();
        long now = System.currentTimeMillis();
        List<DataFileStatus> statuses = new ArrayList<>(files.size());
        for (DataFile f : files) {
            Optional<DataFileStatistics> stats = f.statsJson() == null ? Optional.empty()
                    : DataFileStatistics.deserializeFromJson(f.statsJson(), schema);
            statuses.add(new DataFileStatus(path + "/" + f.path(), f.sizeBytes(), now, stats));
        }
        List<Row> actions = new ArrayList<>();
        try (CloseableIterator<Row> it = Transaction.generateAppendActions(engine, state,
                KernelIterators.of(statuses.iterator()), context)) {
            it.forEachRemaining(actions::add);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        TransactionCommitResult result;
        try {
            result = txn.commit(engine, CloseableIterable.inMemoryIterable(KernelIterators.of(actions.iterator())));
        } catch (ConcurrentWriteException | MaxCommitRetryLimitReachedException e) {
            throw new TableChangedException(basedOn, tables.latest(path).getVersion());
        }
        tables.runHooks(result);
        return result.getVersion();
    }
}
