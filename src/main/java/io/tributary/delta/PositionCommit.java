package io.tributary.delta;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionCommitResult;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.tributary.retry.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A stream's commit ({@link PositionCommits#commit}): the files and every partition's next offset in one Delta commit,
 * checked against the positions of the latest snapshot, retried through storage failures without ever landing twice.
 */
final class PositionCommit {
    /** Kernel rebases blind appends by itself; beyond this we re-read the table ourselves with a back-off. */
    private static final int KERNEL_RETRIES = 10;
    /** How long a commit keeps trying through storage failures (e.g. S3 unreachable) before giving up. */
    private static final long STORAGE_RETRY_MILLIS = 120_000;
    private static final Backoff STORAGE_BACKOFF = Backoff.exponential(Duration.ofMillis(200), Duration.ofSeconds(5));

    private PositionCommit() {}

    static long commit(KernelTables tables, String path, List<DataFile> files, Map<PartitionKey, OffsetRange> ranges) {
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
                sleep(STORAGE_BACKOFF.delay(attempt).toMillis());
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
                        Map<PartitionKey, Long> next = new TreeMap<>();
                        current.forEach((k, v) -> next.put(k, v.next()));
                        throw new PositionConflictException(next);
                    }
                }
                if (files.isEmpty() && ranges.isEmpty()) {
                    return snapshot.getVersion();
                }
                TransactionCommitResult result = commitOnce(tables, path, snapshot, files, ranges, commitId, current);
                tables.runHooks(result, current.size() + ranges.size());
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
    private static TransactionCommitResult commitOnce(KernelTables tables, String path, Snapshot snapshot,
            List<DataFile> files, Map<PartitionKey, OffsetRange> ranges, String commitId,
            Map<PartitionKey, PartitionPosition> prior) {
        Engine engine = tables.engine();
        Transaction txn = snapshot.buildUpdateTableTransaction(KernelTables.ENGINE_INFO, Operation.WRITE)
                .withMaxRetries(KERNEL_RETRIES)
                .build(engine);
        java.time.Instant at = java.time.Instant.now();
        ranges.forEach((p, r) -> txn.addDomainMetadata(PositionDomains.domain(p),
                PositionDomains.config(p, r, commitId, prior.get(p), at)));
        return txn.commit(engine, AppendActions.of(engine, txn, path, snapshot.getSchema(), files));
    }

    /** What identifies this commit in the log: its id in the position domains, else its first data file's name. */
    private static String marker(String commitId, List<DataFile> files, Map<PartitionKey, OffsetRange> ranges) {
        return ranges.isEmpty() && !files.isEmpty() ? files.get(0).path() : commitId;
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
