package io.tributary.ingest;

import io.tributary.delta.DataFile;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.PartitionPosition;
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
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.avro.Schema;

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
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(StreamIngester.class.getName());

    /**
     * Below this many records a batch is one file: small files cost readers more than the write saves. At the default
     * 100,000-record batch a catch-up writes two files in parallel on two cores.
     */
    static final int MIN_ROWS_PER_PARALLEL_FILE = 25_000;

    private final DeltaTable table;
    private final WriteGuard guard;
    private Schema rowSchema;
    private Decoder keyDecoder;
    private Decoder valueDecoder;
    /**
     * Decoders of the files written beside the first, index i for the (i+1)-th file; decoders are not thread-safe, so
     * each concurrently written file has its own. Empty, and kept empty, when the caller gave fixed decoders.
     */
    private final List<Decoder[]> extraDecoders = new ArrayList<>();
    private int parallelism = 1;
    /** Null when the caller gave fixed decoders: then the table's schema never changes. */
    private StreamSchema schema;
    private volatile Map<PartitionKey, Long> positions;
    /** The table's positions with their topic ids and refill marks, as of this writer's last commit or conflict. */
    private volatile Map<PartitionKey, PartitionPosition> details;
    private TopicIds topicIds;
    private RecordReader reader;
    private volatile boolean cancelled;
    /** Set once the guard found the stream gone: no later batch writes a file under its location. */
    private volatile boolean deleted;
    private CommitHook hook = CommitHook.NONE;

    /**
     * @param rowSchema the table's row schema, its seven columns in SPEC order
     * @param keyDecoder decoder of the Kafka key into the {@code key} column; used on this ingester's thread only
     */
    public StreamIngester(DeltaTable table, Schema rowSchema, Decoder keyDecoder, Decoder valueDecoder) {
        this(table, rowSchema, keyDecoder, valueDecoder, WriteGuard.NONE);
    }

    /** @param guard runs each commit; when it finds the stream gone, {@link #ingest} throws {@link StreamDeletedException} */
    public StreamIngester(DeltaTable table, Schema rowSchema, Decoder keyDecoder, Decoder valueDecoder,
            WriteGuard guard) {
        List<String> names = rowSchema.getFields().stream().map(Schema.Field::name).toList();
        if (!names.equals(Rows.COLUMNS)) {
            throw new IllegalArgumentException("the row schema's columns must be " + Rows.COLUMNS + ", not " + names);
        }
        this.table = table;
        this.guard = guard;
        this.rowSchema = rowSchema;
        this.keyDecoder = keyDecoder;
        this.valueDecoder = valueDecoder;
        this.details = Map.copyOf(table.positionDetails());
        this.positions = nexts(details);
    }

    /**
     * An ingester whose table follows the stream's schema: before a batch is written, a message naming a registry
     * writer schema that adds nullable fields evolves the table (see {@link DeltaTable#evolveSchema}) and the rows of
     * that batch on are written with the wider schema. When the table has columns {@code schema} lacks (a field a
     * later registry version removed), the newest earlier version that covers the table is used instead.
     *
     * @throws IllegalStateException when no version of the schema can write this table (the message says why)
     * @throws io.tributary.schema.SchemaRegistryUnavailableException when the registry could not be asked
     */
    public StreamIngester(DeltaTable table, StreamSchema schema) {
        this(table, schema, WriteGuard.NONE);
    }

    /** The schema-following ingester whose commits run inside {@code guard} (see the class comment). */
    public StreamIngester(DeltaTable table, StreamSchema schema, WriteGuard guard) {
        this(table, TableSchemas.matching(table, schema), guard, true);
    }

    /** {@code evolving} only tells this constructor apart from the public one. */
    private StreamIngester(DeltaTable table, StreamSchema matched, WriteGuard guard, boolean evolving) {
        this(table, matched.rowSchema(), matched.keySide().newDecoder(), matched.valueSide().newDecoder(), guard);
        this.schema = matched;
        this.parallelism = ParallelFiles.parallelism();
    }

    /** The next offset to ingest per partition, as of this writer's last commit or conflict. */
    public Map<PartitionKey, Long> positions() {
        return positions;
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
        for (int round = 1; ; round++) {
            try {
                return ingestChecked(batch);
            } catch (TopicMoved moved) {
                // Another writer reset a partition of the batch meanwhile: look at the topics again.
                if (round >= MAX_TOPIC_ROUNDS) {
                    throw new IllegalStateException("the positions of " + moved.partition + " keep changing topic "
                            + "under this writer");
                }
            }
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
        Reset reset = resetRecreated(current);
        if (!reset.recreations.isEmpty() && reader == null) {
            Set<PartitionKey> reread = new HashSet<>();
            batch.partitions().keySet().stream().filter(p -> reset.topics().contains(p.topic())).forEach(reread::add);
            MicroBatch rest = without(batch, reread);
            Optional<CommitResult> written = write(rest, ids, Set.of());
            CommitResult resetOnly = new CommitResult(reset.version, Instant.now(), 0, 0, 0, 0, positions, List.of());
            return Optional.of(withRecreations(written.orElse(resetOnly), reset.recreations, reread));
        }
        Refill refill = reader == null ? new Refill(batch, Set.of(), null) : refill(batch, ids);
        Optional<CommitResult> written = write(refill.batch, ids, refill.stillRefilling);
        CommitResult result = refill.committed == null ? written.orElse(null)
                : written.map(w -> combine(refill.committed, w)).orElse(refill.committed);
        if (result == null && !reset.recreations.isEmpty()) {
            result = new CommitResult(reset.version, Instant.now(), 0, 0, 0, 0, positions, List.of());
        }
        return result == null ? Optional.empty()
                : Optional.of(withRecreations(result, reset.recreations, Set.of()));
    }

    /** The outcome of {@link #resetRecreated}: what was reset, in which table version. */
    private record Reset(List<IngestionStatus.TopicRecreation> recreations, long version) {
        Set<String> topics() {
            Set<String> t = new HashSet<>();
            recreations.forEach(r -> t.add(r.topic()));
            return t;
        }
    }

    /**
     * Resets, in one commit without data, every partition of a topic that was deleted and created again: one whose
     * recorded topic id is not the current one, or, for positions recorded before ids were, one whose position lies
     * beyond the partition's end offset (offsets of one topic never shrink) or beyond the topic's partitions. The
     * positions go to 0 with the new id, so the new topic is read from its beginning; partitions the new topic lacks
     * go to 0 too, so one added later is read from its beginning as well.
     */
    private Reset resetRecreated(Map<String, TopicIds.Topic> current) {
        for (int attempt = 1; ; attempt++) {
            Map<PartitionKey, PartitionPosition> known = details;
            Map<PartitionKey, OffsetRange> resets = new LinkedHashMap<>();
            List<IngestionStatus.TopicRecreation> recreations = new ArrayList<>();
            Instant now = Instant.now();
            for (Map.Entry<String, TopicIds.Topic> t : current.entrySet()) {
                Map<PartitionKey, PartitionPosition> ofTopic = new TreeMap<>();
                known.forEach((k, v) -> {
                    if (k.topic().equals(t.getKey())) {
                        ofTopic.put(k, v);
                    }
                });
                if (!recreated(ofTopic, t.getValue())) {
                    continue;
                }
                Optional<String> previous = ofTopic.values().stream().map(PartitionPosition::topicId)
                        .flatMap(Optional::stream).filter(id -> !id.equals(t.getValue().id())).findFirst();
                ofTopic.forEach((k, v) -> resets.put(k, OffsetRange.reset(0, new PartitionPosition.Recreation(
                        v.topicId(), v.next(), t.getValue().id(), now))));
                recreations.add(new IngestionStatus.TopicRecreation(t.getKey(), previous.orElse(null),
                        t.getValue().id(), now));
            }
            if (resets.isEmpty()) {
                return new Reset(List.of(), -1);
            }
            try {
                Optional<Long> fenced = guard.run(() -> table.commit(List.of(), resets));
                if (fenced.isEmpty()) {
                    throw deleted(null, List.of());
                }
                long version = fenced.get();
                refreshPositions();
                recreations.forEach(r -> LOG.info(r.message()));
                return new Reset(List.copyOf(recreations), version);
            } catch (PositionConflictException conflict) {
                // Another writer moved these partitions (maybe reset them itself): decide again on what it left.
                refreshPositions();
                if (attempt >= MAX_ATTEMPTS) {
                    throw conflict;
                }
            }
        }
    }

    private boolean recreated(Map<PartitionKey, PartitionPosition> ofTopic, TopicIds.Topic topic) {
        Set<PartitionKey> unknown = new HashSet<>();
        for (Map.Entry<PartitionKey, PartitionPosition> e : ofTopic.entrySet()) {
            PartitionPosition p = e.getValue();
            if (p.topicId().isPresent()) {
                if (!p.topicId().get().equals(topic.id())) {
                    return true;
                }
            } else if (p.next() > 0) {
                if (e.getKey().partition() >= topic.partitions()) {
                    // A topic's partitions are never taken away.
                    return true;
                }
                unknown.add(e.getKey());
            }
        }
        if (unknown.isEmpty()) {
            return false;
        }
        Map<PartitionKey, Long> ends = topicIds.endOffsets(unknown);
        for (PartitionKey k : unknown) {
            Long end = ends.get(k);
            if (end != null && end < ofTopic.get(k).next()) {
                return true;
            }
        }
        return false;
    }

    private record Refill(MicroBatch batch, Set<PartitionKey> stillRefilling, CommitResult committed) {}

    /**
     * For each partition of the batch that is still being refilled after a reset, the records up to the batch's last
     * one are read from Kafka and replace the batch's: the delivery may have skipped the new topic's first records, or
     * may even hold the old topic's last ones. Full chunks are committed on the way; a partition stays marked until
     * what was read reaches the batch's end.
     */
    private Refill refill(MicroBatch batch, Map<String, String> ids) {
        Map<PartitionKey, List<SourceRecord>> parts = new LinkedHashMap<>(batch.partitions());
        Set<PartitionKey> still = new HashSet<>();
        CommitResult committed = null;
        boolean changed = false;
        for (Map.Entry<PartitionKey, List<SourceRecord>> e : batch.partitions().entrySet()) {
            PartitionPosition at = details.get(e.getKey());
            List<SourceRecord> list = e.getValue();
            long until = list.get(list.size() - 1).offset() + 1;
            if (at == null || !at.refill() || until <= at.next()) {
                continue;
            }
            changed = true;
            if (!ids.containsKey(e.getKey().topic())) {
                // The topic is gone again: nothing can be read for it now; the mark stays for a later delivery.
                parts.remove(e.getKey());
                continue;
            }
            long from = at.next();
            List<SourceRecord> read = reader.read(e.getKey(), from, until, REFILL_CHUNK);
            while (read.size() >= REFILL_CHUNK && last(read) + 1 < until) {
                MicroBatch.Builder chunk = MicroBatch.builder();
                read.forEach(chunk::add);
                Optional<CommitResult> c = write(chunk.build(), ids, Set.of(e.getKey()));
                if (c.isPresent()) {
                    committed = committed == null ? c.get() : combine(committed, c.get());
                }
                read = reader.read(e.getKey(), last(read) + 1, until, REFILL_CHUNK);
            }
            if (read.isEmpty() || last(read) + 1 < until) {
                still.add(e.getKey());
            }
            if (read.isEmpty()) {
                parts.remove(e.getKey());
            } else {
                parts.put(e.getKey(), read);
            }
        }
        if (!changed) {
            return new Refill(batch, Set.of(), null);
        }
        MicroBatch.Builder rebuilt = MicroBatch.builder();
        parts.values().forEach(list -> list.forEach(rebuilt::add));
        return new Refill(rebuilt.build(), Set.copyOf(still), committed);
    }

    private static long last(List<SourceRecord> records) {
        return records.get(records.size() - 1).offset();
    }

    private static MicroBatch without(MicroBatch batch, Set<PartitionKey> dropped) {
        MicroBatch.Builder rest = MicroBatch.builder();
        batch.partitions().forEach((k, list) -> {
            if (!dropped.contains(k)) {
                list.forEach(rest::add);
            }
        });
        return rest.build();
    }

    private static CommitResult combine(CommitResult a, CommitResult b) {
        List<List<SourceRecord>> committed = new ArrayList<>(a.committed());
        committed.addAll(b.committed());
        return new CommitResult(b.tableVersion(), b.committedAt(), a.rows() + b.rows(), a.bytes() + b.bytes(),
                a.decodeFailures() + b.decodeFailures(), a.commitNanos() + b.commitNanos(), b.positions(), committed,
                b.recreations(), b.reread());
    }

    private static CommitResult withRecreations(CommitResult r, List<IngestionStatus.TopicRecreation> recreations,
            Set<PartitionKey> reread) {
        return new CommitResult(r.tableVersion(), r.committedAt(), r.rows(), r.bytes(), r.decodeFailures(),
                r.commitNanos(), r.positions(), r.committed(), recreations, Set.copyOf(reread));
    }

    private void refreshPositions() {
        Map<PartitionKey, PartitionPosition> now = Map.copyOf(table.positionDetails());
        details = now;
        positions = nexts(now);
    }

    private static Map<PartitionKey, Long> nexts(Map<PartitionKey, PartitionPosition> details) {
        Map<PartitionKey, Long> out = new HashMap<>();
        details.forEach((k, v) -> out.put(k, v.next()));
        return Map.copyOf(out);
    }

    /** A partition of the batch now belongs to another topic id than the one this attempt was planned with. */
    private static final class TopicMoved extends RuntimeException {
        final PartitionKey partition;

        TopicMoved(PartitionKey partition) {
            super(null, null, false, false);
            this.partition = partition;
        }
    }

    /**
     * The records of the batch the table does not have yet, committed with their ranges. {@code ids}: the current
     * topic ids (recorded with every range; partitions of those topics whose positions have no id yet adopt it in the
     * same commit); {@code refilling}: partitions that stay marked for refill.
     */
    private Optional<CommitResult> write(MicroBatch batch, Map<String, String> ids, Set<PartitionKey> refilling) {
        Map<PartitionKey, Long> known = positions;
        Pending pending = Pending.of(batch.partitions(), known);
        List<DataFile> files = null;
        // Written by this call and no longer to be committed (their rows landed meanwhile): removed if the stream
        // turns out deleted, since they lie under its location; otherwise orphans for maintenance.
        List<DataFile> superseded = new ArrayList<>();
        long decodeFailures = 0;
        Map<PartitionKey, Long> failuresByPartition = Map.of();
        for (int attempt = 1; ; attempt++) {
            if (pending.isEmpty()) {
                return Optional.empty();
            }
            if (files == null) {
                evolve(pending, superseded);
                List<Rows> parts = rows(pending);
                files = ParallelFiles.write(table, parts);
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
            if (!ids.isEmpty()) {
                ranges.replaceAll((p, r) -> r.withTopic(ids.get(p.topic()), refilling.contains(p)));
                details.forEach((p, at) -> {
                    String id = ids.get(p.topic());
                    if (id != null && at.topicId().isEmpty() && !ranges.containsKey(p)) {
                        ranges.put(p, new OffsetRange(at.next(), at.next(), 0, id, at.refill(), null));
                    }
                });
            }
            hook.beforeCommit();
            if (cancelled) {
                throw new java.util.concurrent.CancellationException("the pipeline is stopping");
            }
            long started = System.nanoTime();
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
                    known = merge(known, conflict.committed());
                    positions = known;
                } else {
                    // Positions may have gone down (another writer reset a recreated topic): take the table's as
                    // they are, and start over when a partition of the batch changed topic.
                    refreshPositions();
                    known = positions;
                    for (PartitionKey p : ranges.keySet()) {
                        PartitionPosition at = details.get(p);
                        String id = ids.get(p.topic());
                        if (at != null && id != null && at.topicId().isPresent() && !at.topicId().get().equals(id)) {
                            throw new TopicMoved(p);
                        }
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
            Map<PartitionKey, Long> after = new HashMap<>(known);
            ranges.forEach((key, range) -> after.put(key, range.next()));
            positions = Map.copyOf(after);
            Map<PartitionKey, PartitionPosition> detailsAfter = new HashMap<>(details);
            ranges.forEach((key, range) -> {
                PartitionPosition prior = detailsAfter.get(key);
                Optional<String> id = range.topicId() != null ? Optional.of(range.topicId())
                        : prior == null ? Optional.empty() : prior.topicId();
                detailsAfter.put(key, new PartitionPosition(range.next(), id, range.refill(),
                        prior == null ? Optional.empty() : prior.recreated(), 0));
            });
            details = Map.copyOf(detailsAfter);
            return Optional.of(new CommitResult(version, Instant.now(), pending.size, bytes(pending),
                    decodeFailures, commitNanos, positions, pending.partitions.values()));
        }
    }

    /**
     * The pending records as the rows of one file per part: one part unless the batch is large enough and the machine
     * has cores to spare, when decoding and Parquet encoding (the bulk of ingestion's CPU time) run on several threads.
     * Every part is still committed in one Delta commit.
     */
    private List<Rows> rows(Pending pending) {
        int parts = Math.max(1, Math.min(parallelism, pending.size / MIN_ROWS_PER_PARALLEL_FILE));
        if (parts == 1) {
            return List.of(new Rows(rowSchema, keyDecoder, valueDecoder, List.copyOf(pending.partitions.values())));
        }
        List<List<List<SourceRecord>>> split = pending.split(parts);
        List<Rows> rows = new ArrayList<>(split.size());
        for (int i = 0; i < split.size(); i++) {
            Decoder[] decoders = decoders(i);
            rows.add(new Rows(rowSchema, decoders[0], decoders[1], split.get(i)));
        }
        return rows;
    }

    private Decoder[] decoders(int part) {
        if (part == 0) {
            return new Decoder[] {keyDecoder, valueDecoder};
        }
        while (extraDecoders.size() < part) {
            extraDecoders.add(new Decoder[] {schema.keySide().newDecoder(), schema.valueSide().newDecoder()});
        }
        return extraDecoders.get(part - 1);
    }

    /** Test seam: how many files one batch may be written into at once. */
    void parallelism(int parallelism) {
        if (parallelism > 1 && schema == null) {
            throw new IllegalStateException("fixed decoders cannot be shared by several writing threads");
        }
        this.parallelism = Math.max(1, parallelism);
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
        if (schema == null) {
            return;
        }
        for (List<SourceRecord> records : pending.partitions.values()) {
            for (SourceRecord r : records) {
                Optional<StreamSchema> wider = schema.widenedFor(r.key(), r.value());
                if (wider.isPresent()) {
                    Schema widened = wider.get().rowSchema();
                    if (guard.run(() -> {
                        table.evolveSchema(widened);
                        return Boolean.TRUE;
                    }).isEmpty()) {
                        throw deleted(null, superseded);
                    }
                    schema = wider.get();
                    rowSchema = schema.rowSchema();
                    keyDecoder = schema.keySide().newDecoder();
                    valueDecoder = schema.valueSide().newDecoder();
                    extraDecoders.clear();
                }
            }
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

    private static Map<PartitionKey, Long> merge(Map<PartitionKey, Long> known, Map<PartitionKey, Long> committed) {
        Map<PartitionKey, Long> merged = new HashMap<>(known);
        committed.forEach((key, next) -> merged.merge(key, next, Math::max));
        return Map.copyOf(merged);
    }

    private static long bytes(Pending pending) {
        long bytes = 0;
        for (List<SourceRecord> list : pending.partitions.values()) {
            for (SourceRecord r : list) {
                bytes += r.byteSize();
            }
        }
        return bytes;
    }
}
