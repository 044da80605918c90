package io.tributary.delta;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.delta.kernel.utils.CloseableIterable;
import java.util.List;
import java.util.Map;
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
        // Re-set as they are (counts, ids, refill marks, recreations, freshness, losses), not only the offset: a refill
        // mark dropped here would end a Lambda's refill of a recreated topic half-way. The merge adds no stream record.
        Map<PartitionKey, PartitionPosition> positions = PositionDomains.details(base);
        positions.forEach((p, position) -> txn.addDomainMetadata(PositionDomains.domain(p),
                PositionDomains.config(p, commitId, position)));
        domains.forEach(txn::addDomainMetadata);
        CloseableIterable<Row> actions = AppendActions.of(engine, txn, path, base.getSchema(), files);
        TransactionCommitResult result;
        try {
            result = txn.commit(engine, actions);
        } catch (ConcurrentWriteException | MaxCommitRetryLimitReachedException e) {
            throw new TableChangedException(basedOn, tables.latest(path).getVersion());
        }
        tables.runHooks(result, positions.size() + domains.size());
        return result.getVersion();
    }
}
