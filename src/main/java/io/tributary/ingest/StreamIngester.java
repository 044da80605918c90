package io.tributary.ingest;

import io.tributary.delta.DataFile;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.PositionConflictException;
import io.tributary.delta.WriteGuard;
import io.tributary.schema.Decoder;
import io.tributary.schema.StreamSchema;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;

/**
 * The decode, write and commit step of one stream, shared by every runtime so that exactly-once lives in one place.
 *
 * <p>Exactly once rests on the table alone: each commit carries the batch's offset range per partition and succeeds
 * only where the table's position is the range's start. Records below the table's position are dropped before
 * writing, so a redelivered batch adds nothing; when another writer got there first, the commit fails as a whole and
 * the batch is filtered again against the positions the table reports.
 *
 * <p>Every commit (data, and the metadata commit of a schema change) runs inside the ingester's {@link WriteGuard},
 * the same fence the table's other writers use: a stream deleted meanwhile, by this process or another, is never
 * written to again, and the files written for the batch are removed ({@link StreamDeletedException}).
 *
 * <p>Not thread-safe: one thread ingests at a time; {@link #positions()} may be read from any thread.
 */
public final class StreamIngester {

    /** Beyond this many lost races in a row something else is wrong; failing lets the runtime back off. */
    private static final int MAX_ATTEMPTS = 50;

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
        this.positions = Map.copyOf(table.positions());
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
            Map<PartitionKey, OffsetRange> ranges = pending.ranges(known, failuresByPartition);
            hook.beforeCommit();
            if (cancelled) {
                throw new java.util.concurrent.CancellationException("the pipeline is stopping");
            }
            long started = System.nanoTime();
            List<DataFile> toCommit = files;
            Optional<Long> version;
            try {
                version = guard.run(() -> table.commit(toCommit, ranges));
            } catch (PositionConflictException conflict) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw conflict;
                }
                known = merge(known, conflict.committed());
                positions = known;
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
            if (version.isEmpty()) {
                throw deleted(files, superseded);
            }
            long commitNanos = System.nanoTime() - started;
            hook.afterCommit();
            Map<PartitionKey, Long> after = new HashMap<>(known);
            ranges.forEach((key, range) -> after.put(key, range.next()));
            positions = Map.copyOf(after);
            return Optional.of(new CommitResult(version.get(), Instant.now(), pending.size, bytes(pending),
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
