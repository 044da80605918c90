package io.tributary.ingest;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.RowRewrites;
import io.tributary.delta.TableChangedException;
import io.tributary.delta.TableRows;
import io.tributary.delta.WriteGuard;
import io.tributary.schema.Decoder;
import io.tributary.schema.SchemaRegistryUnavailableException;
import io.tributary.schema.StreamSchema;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.avro.generic.GenericRecord;

/**
 * The rescued records of a stream's table (SPEC "Rescued records"): rows whose {@code _rescued_data} is set, i.e.
 * records that did not decode when they were ingested and have not been replayed successfully since. Counted from the
 * files' statistics, listed in (topic, partition, offset) order, and replayed: decoded again with the stream's current
 * schema, the rows that now decode rewritten with their values in one commit. Same code on every runtime.
 */
public final class RescuedRecords {
    /** A rewrite that lost to a concurrent compaction is redone on the new snapshot; beyond this, the caller retries. */
    static final int MAX_ATTEMPTS = 5;

    private static final Comparator<Rescued> ORDER = Comparator.comparing(Rescued::topic)
            .thenComparingInt(Rescued::partition).thenComparingLong(Rescued::offset);

    private RescuedRecords() {}

    /** One rescued record: where it came from and its raw bytes, base64 in the API. */
    public record Rescued(String topic, int partition, long offset, Instant timestamp, byte[] key, byte[] value,
            String error) {}

    /** Where a page ends: the next page lists the records after it. */
    public record After(String topic, int partition, long offset) {}

    /** {@code next}: where the next page starts, empty after the last page. */
    public record Page(List<Rescued> records, Optional<After> next) {}

    /** {@code tableVersion}: the version of the replay's commit, or the table's when nothing changed. */
    public record Replay(long replayed, long stillUndecodable, long tableVersion) {}

    /** Rows still holding rescued data. */
    public static long count(RowRewrites table) {
        return table.rowsWithColumnSet(StreamSchema.RESCUED_DATA, StreamSchema.RESCUED_SIDE);
    }

    /**
     * Up to {@code max} rescued records after {@code after} (from the first when null). Only files holding rescued rows
     * are read, and of them only the metadata columns and the rescue column; at most {@code max + 1} records are kept.
     */
    public static Page page(RowRewrites table, int max, After after) {
        TreeSet<Rescued> smallest = new TreeSet<>(ORDER);
        Set<String> columns = Set.of(StreamSchema.KAFKA_TOPIC, StreamSchema.KAFKA_PARTITION, StreamSchema.KAFKA_OFFSET,
                StreamSchema.STREAM_RECORD_TIMESTAMP, StreamSchema.RESCUED_DATA);
        try (TableRows rows = table.readFilesWithColumnSet(StreamSchema.RESCUED_DATA, StreamSchema.RESCUED_SIDE,
                columns)) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                if (!(row.get(StreamSchema.RESCUED_DATA) instanceof Map<?, ?> rescued)) {
                    continue;
                }
                Rescued r = new Rescued((String) row.get(StreamSchema.KAFKA_TOPIC),
                        intOr((Number) row.get(StreamSchema.KAFKA_PARTITION)),
                        longOr((Number) row.get(StreamSchema.KAFKA_OFFSET)),
                        (Instant) row.get(StreamSchema.STREAM_RECORD_TIMESTAMP),
                        (byte[]) rescued.get(StreamSchema.RESCUED_KEY), (byte[]) rescued.get(StreamSchema.RESCUED_VALUE),
                        (String) rescued.get(StreamSchema.RESCUED_ERROR));
                if (r.topic() == null || (after != null && ORDER.compare(r, new Rescued(after.topic(),
                        after.partition(), after.offset(), null, null, null, null)) <= 0)) {
                    continue;
                }
                smallest.add(r);
                if (smallest.size() > max + 1) {
                    smallest.pollLast();
                }
            }
        }
        List<Rescued> page = new ArrayList<>(smallest);
        if (page.size() <= max) {
            return new Page(page, Optional.empty());
        }
        page = page.subList(0, max);
        Rescued last = page.get(max - 1);
        return new Page(List.copyOf(page), Optional.of(new After(last.topic(), last.partition(), last.offset())));
    }

    /**
     * Decodes every rescued row again with {@code latest} (the table first takes its schema, as a pipeline's opening
     * does) and commits, in one rewrite of the files holding them, the values of the sides that decode now; a row
     * whose sides all decode loses its rescued data. Positions, the decode failure counts and every other row stay
     * as they were.
     *
     * @param guard the stream's write fence, around the commit
     * @throws SchemaRegistryUnavailableException when the registry could not be asked; nothing was committed
     * @throws RowRewrites.StreamGoneException when the stream was deleted meanwhile; nothing was committed
     */
    public static Replay replay(DeltaTable table, StreamSchema latest, WriteGuard guard) {
        if (!latest.rescues()) {
            throw new IllegalArgumentException("the stream does not rescue undecodable records");
        }
        StreamSchema schema = TableSchemas.matching(table, latest);
        Decoder keyDecoder = schema.keySide().newDecoder();
        Decoder valueDecoder = schema.valueSide().newDecoder();
        for (int attempt = 1; ; attempt++) {
            long[] counts = new long[2];
            try {
                Optional<Long> version = table.rewriteRows(StreamSchema.RESCUED_DATA, StreamSchema.RESCUED_SIDE,
                        schema.rowSchema(), row -> replayRow(row, keyDecoder, valueDecoder, counts), guard);
                return new Replay(counts[0], counts[1], version.orElseGet(table::version));
            } catch (TableChangedException e) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /** counts[0]: rows whose every failed side decodes now; counts[1]: rows with a side that still does not. */
    private static boolean replayRow(GenericRecord row, Decoder keyDecoder, Decoder valueDecoder, long[] counts) {
        GenericRecord rescued = (GenericRecord) row.get(StreamSchema.RESCUED_DATA);
        String side = String.valueOf(rescued.get(StreamSchema.RESCUED_SIDE));
        byte[] key = bytes(rescued.get(StreamSchema.RESCUED_KEY));
        byte[] value = bytes(rescued.get(StreamSchema.RESCUED_VALUE));
        boolean changed = false;
        String keyError = null;
        String valueError = null;
        if (side.contains(StreamSchema.RESCUED_KEY)) {
            try {
                row.put(StreamSchema.KEY, key == null ? null : keyDecoder.decode(key));
                changed = true;
            } catch (SchemaRegistryUnavailableException e) {
                throw e;
            } catch (Exception e) {
                keyError = Rows.describe(e);
            }
        }
        if (side.contains(StreamSchema.RESCUED_VALUE)) {
            try {
                row.put(StreamSchema.VALUE, value == null ? null : valueDecoder.decode(value));
                changed = true;
            } catch (SchemaRegistryUnavailableException e) {
                throw e;
            } catch (Exception e) {
                valueError = Rows.describe(e);
            }
        }
        if (keyError == null && valueError == null) {
            row.put(StreamSchema.RESCUED_DATA, null);
            counts[0]++;
            return true;
        }
        counts[1]++;
        if (changed) {
            // One side decodes now, the other still does not: keep the bytes for the one left.
            row.put(StreamSchema.RESCUED_DATA, Rows.rescued(rescued.getSchema(), key, value, keyError, valueError));
        }
        return changed;
    }

    private static byte[] bytes(Object v) {
        if (v == null) {
            return null;
        }
        ByteBuffer b = ((ByteBuffer) v).duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    private static int intOr(Number n) {
        return n == null ? -1 : n.intValue();
    }

    private static long longOr(Number n) {
        return n == null ? -1 : n.longValue();
    }
}
