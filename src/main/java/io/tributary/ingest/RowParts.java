package io.tributary.ingest;

import io.tributary.schema.Decoder;
import io.tributary.schema.StreamSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.avro.Schema;

/**
 * How a {@link StreamIngester} turns pending records into rows: the table's row schema, the decoders of key and value,
 * and into how many files (each decoded and encoded on its own thread, with its own decoders) one batch is cut. The
 * schema widens when a message names a wider writer schema. Used on the ingester's thread only.
 */
final class RowParts {
    /**
     * Below this many records a batch is one file: small files cost readers more than the write saves. At the default
     * 100,000-record batch a catch-up writes two files in parallel on two cores.
     */
    static final int MIN_ROWS_PER_PARALLEL_FILE = 25_000;

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

    RowParts(Schema rowSchema, Decoder keyDecoder, Decoder valueDecoder) {
        List<String> names = rowSchema.getFields().stream().map(Schema.Field::name).toList();
        if (!names.equals(Rows.COLUMNS) && !names.equals(Rows.RESCUING_COLUMNS)) {
            throw new IllegalArgumentException("the row schema's columns must be " + Rows.COLUMNS + " (or "
                    + Rows.RESCUING_COLUMNS + "), not " + names);
        }
        this.rowSchema = rowSchema;
        this.keyDecoder = keyDecoder;
        this.valueDecoder = valueDecoder;
    }

    /** From now on the rows follow {@code schema}, which may widen; batches may be cut into parallel files. */
    void follow(StreamSchema schema) {
        this.schema = schema;
        this.parallelism = ParallelFiles.parallelism();
    }

    void parallelism(int parallelism) {
        if (parallelism > 1 && schema == null) {
            throw new IllegalStateException("fixed decoders cannot be shared by several writing threads");
        }
        this.parallelism = Math.max(1, parallelism);
    }

    /**
     * The pending records as the rows of one file per part: one part unless the batch is large enough and the machine
     * has cores to spare, when decoding and Parquet encoding (the bulk of ingestion's CPU time) run on several threads.
     * Every part is still committed in one Delta commit.
     */
    List<Rows> rows(Pending pending) {
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

    /**
     * Widens the rows for the first record of the batch whose key or value names a wider writer schema, once the
     * table took the wider row schema ({@code evolveTable}, false when the stream is gone).
     *
     * @return false when the table could not be widened because the stream is gone
     */
    boolean widen(Pending pending, Predicate<Schema> evolveTable) {
        if (schema == null) {
            return true;
        }
        for (List<SourceRecord> records : pending.partitions.values()) {
            for (SourceRecord r : records) {
                Optional<StreamSchema> wider = schema.widenedFor(r.key(), r.value());
                if (wider.isPresent()) {
                    if (!evolveTable.test(wider.get().rowSchema())) {
                        return false;
                    }
                    schema = wider.get();
                    rowSchema = schema.rowSchema();
                    keyDecoder = schema.keySide().newDecoder();
                    valueDecoder = schema.valueSide().newDecoder();
                    extraDecoders.clear();
                }
            }
        }
        return true;
    }
}
