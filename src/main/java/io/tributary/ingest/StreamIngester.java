package io.tributary.ingest;

import io.tributary.delta.DataFile;
import io.tributary.delta.PositionCommits;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.PositionConflictException;
import io.tributary.delta.WriteGuard;
import io.tributary.schema.Decoder;
import io.tributary.schema.StreamSchema;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import io.tributary.logs.LogContext;
import org.apache.avro.Schema;
import org.jboss.logging.Logger;

/**
 * The decode, write and commit step of one stream, shared by every runtime so that exactly-once lives in one place.
 *
 * <p>Exactly once rests on the table alone: each commit carries the batch's offset range per partition and succeeds
 * only where the table's position is the range's start. Records below the table's position are dropped before
 * writing, so a redelivered batch adds nothing; when another writer got there first, the commit fails as a whole and
 * the batch is filtered again against the positions the table reports.
 *
 * <p>Every commit (data, a recreated topic's reset, and the metadata commit of a schema change) runs inside the
 * ingester's {@link WriteGuard}, the same fence the table's other writers use: a stream deleted meanwhile, by this
 * process or another, is never written to again, and the files written for the batch are removed
 * ({@link StreamDeletedException}).
 *
 * <p>Not thread-safe: one thread ingests at a time; {@link #positions()} may be read from any thread.
 */
public final class StreamIngester {

    /** Beyond this many lost races in a row something else is wrong; failing lets the runtime back off. */
    private static final int MAX_ATTEMPTS = 50;
    private static final int MAX_TOPIC_ROUNDS = 10;
    /** Records read from Kafka at once while refilling a reset partition; each full chunk is one commit. */
    static final int REFILL_CHUNK = 50_000;
    private static final Logger LOG = Logger.getLogger(StreamIngester.class);

    /** Below this many records a batch is one file (see {@link RowParts}). */
    static final int MIN_ROWS_PER_PARALLEL_FILE = RowParts.MIN_ROWS_PER_PARALLEL_FILE;

    private final PositionCommits table;
    private final WriteGuard guard;
    private final RowParts rows;
    private final KnownPositions tablePositions;
    private TopicIds topicIds;
    private RecordReader reader;
    private volatile boolean cancelled;
    /** Set once the guard found the stream gone: no later batch writes a file under its location. */
    private volatile boolean deleted;
    private CommitHook hook = CommitHook.NONE;
    /** What the batch being ingested is at ("decode", "write", "commit"); null between batches. */
    private volatile String stage;

    /**
     * @param rowSchema the table's row schema, its seven columns in SPEC order
     * @param keyDecoder decoder of the Kafka key into the {@code key} column; used on this ingester's thread only
     */
    public StreamIngester(PositionCommits table, Schema rowSchema, Decoder keyDecoder, Decoder valueDecoder) {
        this(table, rowSchema, keyDecoder, valueDecoder, WriteGuard.NONE);
    }

    /** @param guard runs each commit; when it finds the stream gone, {@link #ingest} throws {@link StreamDeletedException} */
    public StreamIngester(PositionCommits table, Schema rowSchema, Decoder keyDecoder, Decoder valueDecoder,
            WriteGuard guard) {
        this.rows = new RowParts(rowSchema, keyDecoder, valueDecoder);
        this.table = table;
        this.guard = guard;
        this.tablePositions = new KnownPositions(table.positionDetails());
    }

    /**
     * An ingester whose table follows the stream's schema: before a batch is written, a message naming a registry
     * writer schema that adds nullable fields evolves the table (see {@link io.tributary.delta.TableWriter#evolveSchema}) and the rows of
     * that batch on are written with the wider schema. When the table has columns {@code schema} lacks (a field a
     * later registry version removed), the newest earlier version that covers the table is used instead.
     *
     * @throws IllegalStateException when no version of the schema can write this table (the message says why)
     * @throws io.tributary.schema.SchemaRegistryUnavailableException when the registry could not be asked
     */
    public StreamIngester(PositionCommits table, StreamSchema schema) {
        this(table, schema, WriteGuard.NONE);
    }

    /** The schema-following ingester whose commits run inside {@code guard} (see the class comment). */
    public StreamIngester(PositionCommits table, StreamSchema schema, WriteGuard guard) {
        this(table, TableSchemas.matching(table, schema), guard, true);
    }

    /** {@code evolving} only tells this constructor apart from the public one. */
    private StreamIngester(PositionCommits table, StreamSchema matched, WriteGuard guard, boolean evolving) {
        this(table, matched.rowSchema(), matched.keySide().newDecoder(), matched.valueSide().newDecoder(), guard);
        this.rows.follow(matched);
    }

    /** The next offset to ingest per partition, as of this writer's last commit or conflict. */
    public Map<PartitionKey, Long> positions() {
        return tablePositions.nexts();
    }

    /**
     * The partitions of {@code ends} (end offsets just read from Kafka) whose log ends before the table's position
     * while the topic id the position records is still the topic's: Kafka lost records the table holds (an unclean
     * leader election, a truncated or restored log), and the records it writes at offsets below the position cannot
     * be told from the ones the table has. (A topic deleted and created again has another id: {@link TopicResets}
     * starts it over at its first batch.) Each with the table's position. Asks Kafka for the topics' ids only when
     * some end lies below its position; empty without topic ids (no Kafka: a runtime that has none).
     */
    public Map<PartitionKey, Long> truncatedLogs(Map<PartitionKey, Long> ends) {
        TopicIds ids = topicIds;
        if (ids == null) {
            return Map.of();
        }
        Map<PartitionKey, io.tributary.delta.PartitionPosition> details = tablePositions.details();
        Map<PartitionKey, Long> behind = new HashMap<>();
        ends.forEach((p, end) -> {
            io.tributary.delta.PartitionPosition at = details.get(p);
            if (at != null && at.topicId().isPresent() && end != null && end < at.next()) {
                behind.put(p, at.next());
            }
        });
        if (behind.isEmpty()) {
            return Map.of();
        }
        Set<String> topics = new TreeSet<>();
        behind.keySet().forEach(p -> topics.add(p.topic()));
        Map<String, TopicIds.Topic> current = ids.describe(topics);
        behind.keySet().removeIf(p -> {
            TopicIds.Topic t = current.get(p.topic());
            return t == null || !details.get(p).topicId().get().equals(t.id());
        });
        return behind;
    }

    /**
     * What the batch being ingested is at, for a runtime's stall watchdog: {@code "decode"} (looking up the writer
     * schemas its messages name), {@code "write"} (decoding its records into Parquet data files), {@code "commit"}
     * (the Delta commit, under the write guard); null while no batch is being ingested. Readable from any thread.
     */
    public String stage() {
        return stage;
    }

    /**
     * From now on no commit of this ingester starts; one already running completes. Stopping a stream uses this so
     * that, once its threads are joined, nothing it wrote can still land.
     */
    public void cancel() {
        cancelled = true;
    }

    /**
     * From now on every batch is checked against the topics as Kafka has them now: a topic whose id differs from the
     * one the table's positions record (deleted and created again under the same name) has its positions reset to the
     * new topic's beginning. Without it (tests, tools) ids are neither checked nor recorded.
     */
    public StreamIngester topicIds(TopicIds topicIds) {
        this.topicIds = topicIds;
        return this;
    }

    /**
     * For a runtime that cannot re-read a partition itself (a Lambda event source mapping): after a reset, the new
     * topic's records up to the batch's are read through {@code reader} and ingested instead of the batch's. Without
     * one, a reset partition's records are dropped and {@link CommitResult#reread()} names it: the runtime reads it
     * again from the table's (reset) position.
     */
    public StreamIngester recordReader(RecordReader reader) {
        this.reader = reader;
        return this;
    }

    /**
     * Writes the records the table does not have yet and commits them with their offset ranges.
     *
     * @return empty when the table already had every record of the batch
     * @throws java.util.concurrent.CancellationException when {@link #cancel()} was called before the commit
     * @throws StreamDeletedException when the write guard found the stream deleted; nothing was committed
     */
    public Optional<CommitResult> ingest(MicroBatch batch) {
        if (deleted) {
            throw new StreamDeletedException(table.location());
        }
        LogContext.batchSize(batch.size());
        try {
            for (int round = 1; ; round++) {
                try {
                    return ingestChecked(batch);
                } catch (TopicResets.Moved moved) {
                    // Another writer reset a partition of the batch meanwhile: look at the topics again.
                    if (round >= MAX_TOPIC_ROUNDS) {
                        throw new IllegalStateException("the positions of " + moved.partition + " keep changing topic "
                                + "under this writer");
                    }
                }
            }
        } finally {
            stage = null;
        }
    }

    private Optional<CommitResult> ingestChecked(MicroBatch batch) {
        if (topicIds == null || batch.isEmpty()) {
            return write(batch, Map.of(), Set.of());
        }
        Set<String> topics = new TreeSet<>();
        batch.partitions().keySet().forEach(p -> topics.add(p.topic()));
        Map<String, String> ids = new HashMap<>();
        Map<String, TopicIds.Topic> current = topicIds.describe(topics);
        current.forEach((topic, t) -> ids.put(topic, t.id()));
        TopicResets.Reset reset = resetRecreated(current);
        if (!reset.recreations().isEmpty() && reader == null) {
            Set<PartitionKey> reread = new HashSet<>();
            batch.partitions().keySet().stream().filter(p -> reset.topics().contains(p.topic())).forEach(reread::add);
            MicroBatch rest = Refills.without(batch, reread);
            Optional<CommitResult> written = write(rest, ids, Set.of());
            CommitResult resetOnly = CommitResults.resetOnly(reset.version(), tablePositions.nexts());
            return Optional.of(CommitResults.withRecreations(written.orElse(resetOnly), reset.recreations(), reread));
        }
        Refills.Refill refill = reader == null ? new Refills.Refill(batch, Set.of(), null)
                : Refills.refill(batch, ids, tablePositions::details, reader, REFILL_CHUNK, this::write);
        Optional<CommitResult> written = write(refill.batch(), ids, refill.stillRefilling());
        CommitResult result = refill.committed() == null ? written.orElse(null)
                : written.map(w -> CommitResults.combine(refill.committed(), w)).orElse(refill.committed());
        if (result == null && !reset.recreations().isEmpty()) {
            result = CommitResults.resetOnly(reset.version(), tablePositions.nexts());
        }
        return result == null ? Optional.empty()
                : Optional.of(CommitResults.withRecreations(result, reset.recreations(), Set.of()));
    }

    /**
     * Resets, in one commit without data, every partition of a topic that was deleted and created again (see
     * {@link TopicResets}), so the new topic is read from its beginning.
     */
    private TopicResets.Reset resetRecreated(Map<String, TopicIds.Topic> current) {
        for (int attempt = 1; ; attempt++) {
            TopicResets.Plan plan = TopicResets.plan(tablePositions.details(), current, topicIds, Instant.now());
            Map<PartitionKey, OffsetRange> resets = plan.resets();
            List<IngestionStatus.TopicRecreation> recreations = plan.recreations();
            if (resets.isEmpty()) {
                return TopicResets.Reset.NONE;
            }
            try {
                stage = "commit";
                Optional<Long> fenced = guard.run(() -> table.commit(List.of(), resets));
                if (fenced.isEmpty()) {
                    throw deleted(null, List.of());
                }
                long version = fenced.get();
                LogContext.tableVersion(version);
                tablePositions.refresh(table);
                recreations.forEach(r -> LOG.infof("%s", r.message()));
                return new TopicResets.Reset(recreations, version);
            } catch (PositionConflictException conflict) {
                // Another writer moved these partitions (maybe reset them itself): decide again on what it left.
                tablePositions.refresh(table);
                if (attempt >= MAX_ATTEMPTS) {
                    throw conflict;
                }
            }
        }
    }

    /**
     * The records of the batch the table does not have yet, committed with their ranges. {@code ids}: the current
     * topic ids (recorded with every range; partitions of those topics whose positions have no id yet adopt it in the
     * same commit); {@code refilling}: partitions that stay marked for refill.
     */
    private Optional<CommitResult> write(MicroBatch batch, Map<String, String> ids, Set<PartitionKey> refilling) {
        Map<PartitionKey, Long> known = tablePositions.nexts();
        Pending pending = Pending.of(batch.partitions(), known);
        List<DataFile> files = null;
        // Written by this call and no longer to be committed (their rows landed meanwhile): removed if the stream
        // turns out deleted, since they lie under its location; otherwise orphans for maintenance.
        List<DataFile> superseded = new ArrayList<>();
        long decodeFailures = 0;
        Map<PartitionKey, Long> failuresByPartition = Map.of();
        ExpiredOffsets expired = topicIds == null ? null : new ExpiredOffsets(topicIds);
        for (int attempt = 1; ; attempt++) {
            if (pending.isEmpty()) {
                return Optional.empty();
            }
            Map<String, Long> gaps = producerGaps(pending, known);
            if (!gaps.isEmpty()) {
                // Another writer's commit left these producers somewhere their batches do not continue: nothing of
                // this batch may land, or the table would skip sequences. The files were never committed.
                List<DataFile> unused = new ArrayList<>(superseded);
                if (files != null) {
                    unused.addAll(files);
                }
                table.discard(unused);
                throw new SequenceGapException(gaps);
            }
            if (files == null) {
                stage = "decode";
                evolve(pending, superseded);
                List<Rows> parts = rows.rows(pending);
                stage = "write";
                files = writeFiles(parts, superseded);
                decodeFailures = 0;
                Map<PartitionKey, Long> failures = new HashMap<>();
                for (Rows part : parts) {
                    decodeFailures += part.decodeFailures();
                    // A partition's run can be split over several parts.
                    part.decodeFailuresByPartition().forEach((p, n) -> failures.merge(p, n, Long::sum));
                }
                failuresByPartition = failures;
            }
            Map<PartitionKey, OffsetRange> ranges = new LinkedHashMap<>(pending.ranges(known, failuresByPartition));
            Pending committing = pending;
            ranges.replaceAll((p, r) -> r.withMaxTimestamp(newestTimestamp(committing.partitions.get(p))));
            if (!ids.isEmpty()) {
                ranges.replaceAll((p, r) -> r.withTopic(ids.get(p.topic()), refilling.contains(p)));
                tablePositions.adoptIds(ranges, ids);
            }
            Map<PartitionKey, OffsetRange.Lost> lost = expired == null ? Map.of() : expired.in(pending, known);
            lost.forEach((p, l) -> ranges.computeIfPresent(p, (k, r) -> r.withLost(l)));
            hook.beforeCommit();
            if (cancelled) {
                throw new java.util.concurrent.CancellationException("the pipeline is stopping");
            }
            long started = System.nanoTime();
            stage = "commit";
            List<DataFile> toCommit = files;
            long version;
            try {
                Optional<Long> fenced = guard.run(() -> table.commit(toCommit, ranges));
                if (fenced.isEmpty()) {
                    throw deleted(files, superseded);
                }
                version = fenced.get();
            } catch (PositionConflictException conflict) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw conflict;
                }
                if (ids.isEmpty()) {
                    known = tablePositions.merge(known, conflict.committed());
                } else {
                    // Positions may have gone down (another writer reset a recreated topic): take the table's as
                    // they are, and start over when a partition of the batch changed topic.
                    tablePositions.refresh(table);
                    known = tablePositions.nexts();
                    Optional<PartitionKey> moved = tablePositions.movedTopic(ranges.keySet(), ids);
                    if (moved.isPresent()) {
                        throw new TopicResets.Moved(moved.get());
                    }
                }
                Pending rest = Pending.of(pending.partitions, known);
                if (rest.size != pending.size) {
                    // The written file holds rows the table now has: write what is left anew. The old file is never
                    // referenced by the log; it is an orphan for maintenance to remove.
                    superseded.addAll(files);
                    files = null;
                }
                pending = rest;
                continue;
            }
            long commitNanos = System.nanoTime() - started;
            hook.afterCommit();
            tablePositions.committed(known, ranges);
            LogContext.tableVersion(version);
            long bytes = pending.bytes();
            LOG.infof("stream %s: committed %d records (%d bytes, %d partitions, %d decode failures) as table version "
                    + "%d in %d ms", LogContext.stream(), pending.size, bytes, ranges.size(), decodeFailures,
                    version, commitNanos / 1_000_000);
            List<IngestionStatus.LostOffsets> losses = lost.isEmpty() ? List.of() : lostOffsets(lost.keySet());
            losses.forEach(l -> LOG.warnf("%s", l.message()));
            return Optional.of(new CommitResult(version, Instant.now(), pending.size, bytes,
                    decodeFailures, commitNanos, tablePositions.nexts(), pending.partitions.values(), List.of(),
                    Set.of(), losses));
        }
    }

    /** The losses of {@code partitions} as the table records them after this writer's commit. */
    private List<IngestionStatus.LostOffsets> lostOffsets(Set<PartitionKey> partitions) {
        Map<PartitionKey, io.tributary.delta.PartitionPosition> details = new HashMap<>(tablePositions.details());
        details.keySet().retainAll(partitions);
        return IngestionStatus.LostOffsets.of(details);
    }

    /** Producers whose first pending batch is not the one the table expects next (see {@link Pending#ranges}). */
    private static Map<String, Long> producerGaps(Pending pending, Map<PartitionKey, Long> known) {
        Map<String, Long> gaps = new java.util.TreeMap<>();
        pending.partitions.forEach((p, records) -> {
            Long next = known.get(p);
            if (p.isProducer() && next != null && records.get(0).offset() != next) {
                gaps.put(p.topic(), next);
            }
        });
        return gaps;
    }

    /**
     * Reads the table's positions again (another process may have moved them) and returns them; call from the
     * ingesting thread, between batches.
     */
    public Map<PartitionKey, Long> refreshPositions() {
        tablePositions.refresh(table);
        return tablePositions.nexts();
    }

    /** The newest Kafka timestamp of a partition's records (they are not in timestamp order); -1 when none has one. */
    private static long newestTimestamp(List<SourceRecord> records) {
        long newest = -1;
        if (records != null) {
            for (SourceRecord r : records) {
                newest = Math.max(newest, r.timestampMs());
            }
        }
        return newest;
    }

    /** Test seam: how many files one batch may be written into at once. */
    void parallelism(int parallelism) {
        rows.parallelism(parallelism);
    }

    /**
     * The batch's data files. Only commits hold the guard, so a delete may be removing the location while they are
     * written, which fails the write with whatever the storage says (a missing directory, a vanished part file).
     * Asked after such a failure, the guard (which waits for a delete in flight) tells a deleted stream from a real
     * storage fault, so a writer that raced a delete reports the delete. The guard's own failures (the registry
     * database unreachable) never come through here: only storage's do.
     */
    private List<DataFile> writeFiles(List<Rows> parts, List<DataFile> superseded) {
        try {
            return ParallelFiles.write(table, parts);
        } catch (RuntimeException e) {
            if (guard.ownerGoneAfter(e)) {
                StreamDeletedException gone = deleted(null, superseded);
                gone.addSuppressed(e);
                throw gone;
            }
            throw e;
        }
    }

    /**
     * The guard found the stream gone: files written after its delete removed the table would otherwise stay under
     * the deleted location (and block re-creating a stream there).
     */
    private StreamDeletedException deleted(List<DataFile> files, List<DataFile> superseded) {
        List<DataFile> written = new ArrayList<>(superseded);
        if (files != null) {
            written.addAll(files);
        }
        table.discard(written);
        deleted = true;
        return new StreamDeletedException(table.location());
    }

    /** Widens the table (one metadata commit) for the first message of the batch that names a wider schema. */
    private void evolve(Pending pending, List<DataFile> superseded) {
        if (!rows.widen(pending, widened -> guard.run(() -> {
            table.evolveSchema(widened);
            return Boolean.TRUE;
        }).isPresent())) {
            throw deleted(null, superseded);
        }
    }

    /** Test seam: lets fault tests kill the step between the Parquet write and the commit, or right after it. */
    void hook(CommitHook hook) {
        this.hook = hook;
    }

    interface CommitHook {
        CommitHook NONE = new CommitHook() {};

        default void beforeCommit() {}

        default void afterCommit() {}
    }
}
