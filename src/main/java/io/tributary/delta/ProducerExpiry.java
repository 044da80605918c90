package io.tributary.delta;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.exceptions.MaxCommitRetryLimitReachedException;
import io.delta.kernel.utils.CloseableIterable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Forgets direct-ingest producers that have not committed since a cutoff: one commit removes their position domains
 * and nothing else. Without it every producer id ever used stayed in the table for ever, listed by every status and
 * holding {@code valid_through} at its last record, and a fleet whose instances take fresh ids grew the table's
 * domains without bound. Kafka forgets idle producers the same way ({@code producer.id.expiration.ms}). A forgotten
 * producer starts again at sequence 0; a batch it re-sends with its old sequence is refused (409), not written again.
 * Kernel's conflict checker fails this commit when a push of one of these producers landed meanwhile (it set the same
 * domain): nothing is forgotten then until the next run.
 */
final class ProducerExpiry {
    private final KernelTables tables;
    private final String path;

    ProducerExpiry(KernelTables tables, String path) {
        this.tables = tables;
        this.path = path;
    }

    /** The producers forgotten, none when none was idle or a push of one of them won. */
    List<String> run(Instant cutoff) {
        Snapshot snapshot = tables.latest(path);
        List<PartitionKey> idle = new ArrayList<>();
        for (Map.Entry<PartitionKey, PartitionPosition> e : PositionDomains.details(snapshot).entrySet()) {
            Optional<Instant> last = e.getValue().lastCommitAt();
            // A producer is registered by its first commit, which always adds records and so dates it.
            if (e.getKey().isProducer() && last.isPresent() && last.get().isBefore(cutoff)) {
                idle.add(e.getKey());
            }
        }
        if (idle.isEmpty()) {
            return List.of();
        }
        // Kernel rebases it over other producers' pushes, which touch none of these domains.
        Transaction txn = snapshot.buildUpdateTableTransaction(KernelTables.ENGINE_INFO, Operation.MANUAL_UPDATE)
                .build(tables.engine());
        idle.forEach(p -> txn.removeDomainMetadata(PositionDomains.domain(p)));
        try {
            TransactionCommitResult result = txn.commit(tables.engine(), CloseableIterable.emptyIterable());
            tables.runHooks(result, io.tributary.delta.kernel.Snapshots.domainCount(snapshot));
        } catch (ConcurrentWriteException | MaxCommitRetryLimitReachedException e) {
            return List.of();
        }
        return idle.stream().map(PartitionKey::topic).toList();
    }
}
