package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.RowFields;
import io.tributary.delta.RowSource;
import io.tributary.schema.DecodeException;
import io.tributary.schema.Decoder;
import io.tributary.schema.AvroNullables;
import io.tributary.schema.SchemaRegistryUnavailableException;
import io.tributary.schema.StreamSchema;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;

/**
 * The rows of pending records, decoded while the data file writer pulls them, so a batch is never held twice in
 * memory (once as bytes, once as rows). Each iteration decodes afresh and recounts decode failures, so the counts match
 * the file that was written last.
 */
final class Rows implements Iterable<GenericRecord>, RowSource {

    static final List<String> COLUMNS = List.of(
            "key", "value", "stream_record_timestamp", "record_source", "kafka_topic", "kafka_partition",
            "kafka_offset");

    /** {@link #COLUMNS} and the rescue column: a stream with {@code rescue_undecodable} (SPEC "Rescued records"). */
    static final List<String> RESCUING_COLUMNS = List.of(
            "key", "value", "stream_record_timestamp", "record_source", "kafka_topic", "kafka_partition",
            "kafka_offset", StreamSchema.RESCUED_DATA);

    /** A decode error is kept to this many characters: it explains, the raw bytes beside it are the evidence. */
    static final int MAX_ERROR_CHARS = 1000;

    private static final String STREAM_NAME = "stream";
    private static final Utf8 STREAM = new Utf8(STREAM_NAME);

    private final Schema rowSchema;
    private final Decoder keyDecoder;
    private final Decoder valueDecoder;
    private final List<List<SourceRecord>> lists;
    /** The schema of the rescue column, or null when the table has none (rescue off). */
    private final Schema rescuedSchema;
    /** Why the side being decoded failed, set by {@link #decode}; only read when rescuing. */
    private String lastError;
    private long decodeFailures;
    private Map<PartitionKey, Long> failuresByPartition = new HashMap<>();

    /** @param lists runs of records of one partition each, in offset order */
    Rows(Schema rowSchema, Decoder keyDecoder, Decoder valueDecoder, List<List<SourceRecord>> lists) {
        this.rowSchema = rowSchema;
        this.keyDecoder = keyDecoder;
        this.valueDecoder = valueDecoder;
        this.lists = lists;
        Schema.Field rescued = rowSchema.getField(StreamSchema.RESCUED_DATA);
        this.rescuedSchema = rescued == null ? null : AvroNullables.nonNull(rescued.schema());
    }

    // The direct path (RowSource): the position and the decoded sides of the readied row.
    private Iterator<List<SourceRecord>> cursorLists;
    private List<SourceRecord> cursorList = List.of();
    private int cursorIndex;
    private String cursorTopic;
    private SourceRecord current;
    private Object currentKey;
    private Object currentValue;
    private GenericRecord currentRescued;

    /** Decode failures (key and value counted apart) of the last complete iteration. */
    long decodeFailures() {
        return decodeFailures;
    }

    /** {@link #decodeFailures()} by partition; partitions without any are left out. */
    Map<PartitionKey, Long> decodeFailuresByPartition() {
        return failuresByPartition;
    }

    @Override
    public Iterator<GenericRecord> iterator() {
        decodeFailures = 0;
        failuresByPartition = new HashMap<>();
        Iterator<List<SourceRecord>> lists = this.lists.iterator();
        return new Iterator<>() {
            private List<SourceRecord> list = List.of();
            private int index;
            private Utf8 topic;

            @Override
            public boolean hasNext() {
                while (index >= list.size()) {
                    if (!lists.hasNext()) {
                        return false;
                    }
                    list = lists.next();
                    index = 0;
                    topic = list.isEmpty() ? null : new Utf8(list.get(0).topic());
                }
                return true;
            }

            @Override
            public GenericRecord next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return row(list.get(index++), topic);
            }
        };
    }

    @Override
    public Schema rowSchema() {
        return rowSchema;
    }

    @Override
    public void rewind() {
        decodeFailures = 0;
        failuresByPartition = new HashMap<>();
        cursorLists = lists.iterator();
        cursorList = List.of();
        cursorIndex = 0;
    }

    /** Decodes both sides (and the rescue value) before anything of the row is written. */
    @Override
    public boolean next() {
        while (cursorIndex >= cursorList.size()) {
            if (!cursorLists.hasNext()) {
                return false;
            }
            cursorList = cursorLists.next();
            cursorIndex = 0;
            cursorTopic = cursorList.isEmpty() ? null : cursorList.get(0).topic();
        }
        SourceRecord r = cursorList.get(cursorIndex++);
        current = r;
        long failuresBefore = decodeFailures;
        currentKey = decode(keyDecoder, r.key());
        String keyError = decodeFailures > failuresBefore ? lastError : null;
        long afterKey = decodeFailures;
        currentValue = decode(valueDecoder, r.value());
        String valueError = decodeFailures > afterKey ? lastError : null;
        currentRescued = null;
        if (decodeFailures > failuresBefore) {
            failuresByPartition.merge(new PartitionKey(r.topic(), r.partition()), decodeFailures - failuresBefore,
                    Long::sum);
            if (rescuedSchema != null) {
                currentRescued = rescued(rescuedSchema, r.key(), r.value(), keyError, valueError);
            }
        }
        return true;
    }

    @Override
    public void emit(RowFields row) {
        SourceRecord r = current;
        row.value(0, currentKey);
        row.value(1, currentValue);
        row.longValue(2, r.timestampMs() * 1000L);
        row.repeatedString(3, STREAM_NAME);
        if (r.partition() != PartitionKey.PRODUCER) {
            row.repeatedString(4, cursorTopic);
            row.intValue(5, r.partition());
            row.longValue(6, r.offset());
        } else {
            // A pushed record has no Kafka coordinates: the kafka_* columns stay NULL (SPEC "Direct ingest").
            row.value(4, null);
            row.value(5, null);
            row.value(6, null);
        }
        if (rescuedSchema != null) {
            row.value(7, currentRescued);
        }
    }

    private GenericRecord row(SourceRecord r, Utf8 topic) {
        GenericData.Record row = new GenericData.Record(rowSchema);
        long failuresBefore = decodeFailures;
        row.put(0, decode(keyDecoder, r.key()));
        String keyError = decodeFailures > failuresBefore ? lastError : null;
        long afterKey = decodeFailures;
        row.put(1, decode(valueDecoder, r.value()));
        String valueError = decodeFailures > afterKey ? lastError : null;
        if (decodeFailures > failuresBefore) {
            failuresByPartition.merge(new PartitionKey(r.topic(), r.partition()), decodeFailures - failuresBefore,
                    Long::sum);
            if (rescuedSchema != null) {
                // In the row itself, so the bytes land in the same commit as the row: exactly once with it.
                row.put(7, rescued(rescuedSchema, r.key(), r.value(), keyError, valueError));
            }
        }
        row.put(2, r.timestampMs() * 1000L);
        row.put(3, STREAM);
        if (r.partition() != PartitionKey.PRODUCER) {
            // A pushed record has no Kafka coordinates: the kafka_* columns stay NULL (SPEC "Direct ingest").
            row.put(4, topic);
            row.put(5, r.partition());
            row.put(6, r.offset());
        }
        return row;
    }

    private Object decode(Decoder decoder, byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        try {
            return decoder.decode(bytes);
        } catch (SchemaRegistryUnavailableException e) {
            // Nothing is known about these bytes: fail the batch (the runtime retries) rather than write NULL.
            throw e;
        } catch (DecodeException | RuntimeException e) {
            // Permissive: an undecodable side is NULL and counted; the row keeps its metadata (SPEC 4).
            decodeFailures++;
            if (rescuedSchema != null) {
                lastError = describe(e);
            }
            return null;
        }
    }

    /**
     * The rescue column's value: both raw sides (a replay decodes the record as a whole), the errors of the sides that
     * failed, and which they are. Null errors mean the side decoded.
     */
    static GenericRecord rescued(Schema rescuedSchema, byte[] key, byte[] value, String keyError, String valueError) {
        GenericData.Record rescued = new GenericData.Record(rescuedSchema);
        rescued.put(0, key == null ? null : ByteBuffer.wrap(key));
        rescued.put(1, value == null ? null : ByteBuffer.wrap(value));
        String error;
        String side;
        if (keyError != null && valueError != null) {
            error = "key: " + keyError + "; value: " + valueError;
            side = "key,value";
        } else if (keyError != null) {
            error = keyError;
            side = "key";
        } else {
            error = valueError;
            side = "value";
        }
        rescued.put(2, error.length() > MAX_ERROR_CHARS ? error.substring(0, MAX_ERROR_CHARS) : error);
        rescued.put(3, side);
        return rescued;
    }

    /** A decode error as a user reads it: the decoder's message, or the failure's kind when it has none. */
    static String describe(Exception e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }
}
