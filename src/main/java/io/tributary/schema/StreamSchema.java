package io.tributary.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.avro.Schema;

/**
 * The row of a stream's ingestion table (SPEC 4): key, value, stream_record_timestamp, record_source, kafka_topic,
 * kafka_partition, kafka_offset, in that order, every column nullable (backfill rows may lack Kafka metadata).
 * Decoders must come from {@link #keySide()} and {@link #valueSide()}: their records carry exactly the record names
 * of {@link #rowSchema()}, which parquet-avro relies on to resolve unions.
 */
public final class StreamSchema {
    public static final String KEY = "key";
    public static final String VALUE = "value";
    public static final String STREAM_RECORD_TIMESTAMP = "stream_record_timestamp";
    public static final String RECORD_SOURCE = "record_source";
    public static final String KAFKA_TOPIC = "kafka_topic";
    public static final String KAFKA_PARTITION = "kafka_partition";
    public static final String KAFKA_OFFSET = "kafka_offset";

    /**
     * The rescue column (SPEC "Rescued records"): the last column of tables of streams with {@code rescue_undecodable},
     * absent otherwise, so tables of streams without rescue keep the seven columns of SPEC 4.
     */
    public static final String RESCUED_DATA = "_rescued_data";
    public static final String RESCUED_KEY = "key";
    public static final String RESCUED_VALUE = "value";
    public static final String RESCUED_ERROR = "error";
    public static final String RESCUED_SIDE = "side";

    static final String ROW_RECORD_NAME = "tributary_row";
    static final String RESCUED_RECORD_NAME = "tributary_rescued_data";

    private final SideSchema key;
    private final SideSchema value;
    private final boolean rescue;
    private final Schema row;

    private StreamSchema(SideSchema key, SideSchema value, boolean rescue) {
        this.key = key;
        this.value = value;
        this.rescue = rescue;
        List<Schema.Field> fields = new ArrayList<>();
        fields.add(ColumnTypes.field(KEY, ColumnTypes.nullable(key.columnSchema())));
        fields.add(ColumnTypes.field(VALUE, ColumnTypes.nullable(value.columnSchema())));
        fields.add(ColumnTypes.field(STREAM_RECORD_TIMESTAMP, ColumnTypes.nullable(ColumnTypes.timestamp())));
        fields.add(ColumnTypes.field(RECORD_SOURCE, ColumnTypes.nullable(ColumnTypes.string())));
        fields.add(ColumnTypes.field(KAFKA_TOPIC, ColumnTypes.nullable(ColumnTypes.string())));
        fields.add(ColumnTypes.field(KAFKA_PARTITION, ColumnTypes.nullable(Schema.create(Schema.Type.INT))));
        fields.add(ColumnTypes.field(KAFKA_OFFSET, ColumnTypes.nullable(Schema.create(Schema.Type.LONG))));
        if (rescue) {
            fields.add(ColumnTypes.field(RESCUED_DATA, ColumnTypes.nullable(rescuedSchema())));
        }
        this.row = ColumnTypes.record(ROW_RECORD_NAME, fields);
    }

    /**
     * @throws IllegalArgumentException if the two sides share record names and cannot be recompiled apart (only
     *                                  possible for SideSchema implementations from outside this package)
     */
    public static StreamSchema of(SideSchema key, SideSchema value) {
        return of(key, value, false);
    }

    /**
     * As {@link #of(SideSchema, SideSchema)}; with {@code rescue} the row ends with {@link #RESCUED_DATA}, which keeps
     * the raw bytes and decode error of every record that did not decode.
     */
    public static StreamSchema of(SideSchema key, SideSchema value, boolean rescue) {
        Set<String> keyNames = recordNames(key.columnSchema());
        Set<String> valueNames = recordNames(value.columnSchema());
        Set<String> reserved = Set.of(ROW_RECORD_NAME, RESCUED_RECORD_NAME);
        if (!Collections.disjoint(keyNames, valueNames) || !Collections.disjoint(keyNames, reserved)
                || !Collections.disjoint(valueNames, reserved)) {
            if (key instanceof CompiledSide k && value instanceof CompiledSide v) {
                key = k.withRecordPrefix(KEY);
                value = v.withRecordPrefix(VALUE);
            } else {
                throw new IllegalArgumentException("key and value schemas share record names");
            }
        }
        return new StreamSchema(key, value, rescue);
    }

    /**
     * struct&lt;key: binary, value: binary, error: string, side: string&gt;: the record's raw key and value bytes (both,
     * whichever side failed, so a replay has the whole record), why decoding failed, and which sides failed
     * ({@code key}, {@code value} or {@code key,value}).
     */
    public static Schema rescuedSchema() {
        List<Schema.Field> fields = new ArrayList<>();
        fields.add(ColumnTypes.field(RESCUED_KEY, ColumnTypes.nullable(Schema.create(Schema.Type.BYTES))));
        fields.add(ColumnTypes.field(RESCUED_VALUE, ColumnTypes.nullable(Schema.create(Schema.Type.BYTES))));
        fields.add(ColumnTypes.field(RESCUED_ERROR, ColumnTypes.nullable(ColumnTypes.string())));
        fields.add(ColumnTypes.field(RESCUED_SIDE, ColumnTypes.nullable(ColumnTypes.string())));
        return ColumnTypes.record(RESCUED_RECORD_NAME, fields);
    }

    /** Whether the row has the {@link #RESCUED_DATA} column. */
    public boolean rescues() {
        return rescue;
    }

    /**
     * The schema after a message whose key or value names a writer schema that widens its side (see
     * {@link SideSchema#widenedFor}); empty when neither side changes.
     *
     * @throws SchemaRegistryUnavailableException a writer schema could not be fetched
     */
    public Optional<StreamSchema> widenedFor(byte[] keyBytes, byte[] valueBytes) {
        Optional<SideSchema> k = key.widenedFor(keyBytes);
        Optional<SideSchema> v = value.widenedFor(valueBytes);
        if (k.isEmpty() && v.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(of(k.orElse(key), v.orElse(value), rescue));
    }

    /**
     * Schemas built from earlier registry versions of the value side (newest first), then of the key side, the other
     * side kept: the candidates for a table whose columns the latest versions no longer cover.
     */
    public List<StreamSchema> earlierVersions() {
        List<StreamSchema> out = new ArrayList<>();
        value.earlierVersions().forEach(v -> out.add(of(key, v, rescue)));
        key.earlierVersions().forEach(k -> out.add(of(k, value, rescue)));
        return out;
    }

    public Schema rowSchema() {
        return row;
    }

    public SideSchema keySide() {
        return key;
    }

    public SideSchema valueSide() {
        return value;
    }

    /**
     * Checks a dotted column path such as {@code value.transaction_id} or {@code kafka_partition}: each part must
     * name a column or a field of the struct before it (arrays and maps cannot be descended into).
     *
     * @return empty if the path names a column or nested struct field, else what is wrong and the valid choices
     */
    public Optional<String> checkColumnPath(String dotted) {
        if (dotted == null || dotted.isBlank()) {
            return Optional.of("is empty; name a column such as `value.id` or `kafka_partition`");
        }
        String[] parts = dotted.split("\\.", -1);
        Schema current = row;
        String walked = "";
        for (String part : parts) {
            Schema struct = ColumnTypes.nonNull(current);
            if (struct.getType() != Schema.Type.RECORD) {
                return Optional.of("`" + dotted + "`: `" + walked + "` is " + describe(struct)
                        + ", which has no fields to descend into; name `" + walked + "` itself or a struct field");
            }
            if (part.isEmpty()) {
                return Optional.of("`" + dotted + "` has an empty part; separate column names with single dots");
            }
            Schema.Field f = struct.getField(part);
            if (f == null) {
                String fields = struct.getFields().stream().map(Schema.Field::name).collect(Collectors.joining(", "));
                String caseHint = struct.getFields().stream()
                        .filter(x -> x.name().toLowerCase(Locale.ROOT).equals(part.toLowerCase(Locale.ROOT)))
                        .map(x -> " (did you mean `" + x.name() + "`?)").findFirst().orElse("");
                return Optional.of("`" + dotted + "` does not name a column: "
                        + (walked.isEmpty() ? "the table" : "`" + walked + "`") + " has no column `" + part + "`"
                        + caseHint + "; its columns are " + fields);
            }
            current = f.schema();
            walked = walked.isEmpty() ? part : walked + "." + part;
        }
        return Optional.empty();
    }

    private static String describe(Schema s) {
        return switch (s.getType()) {
            case ARRAY -> "an array";
            case MAP -> "a map";
            default -> "a " + (s.getLogicalType() != null ? s.getLogicalType().getName() : s.getType().getName())
                    + " column";
        };
    }

    private static Set<String> recordNames(Schema schema) {
        Set<String> names = new HashSet<>();
        collect(schema, names);
        return names;
    }

    private static void collect(Schema s, Set<String> into) {
        switch (s.getType()) {
            case RECORD -> {
                if (into.add(s.getFullName().toLowerCase(Locale.ROOT))) {
                    s.getFields().forEach(f -> collect(f.schema(), into));
                }
            }
            case FIXED, ENUM -> into.add(s.getFullName().toLowerCase(Locale.ROOT));
            case UNION -> s.getTypes().forEach(t -> collect(t, into));
            case ARRAY -> collect(s.getElementType(), into);
            case MAP -> collect(s.getValueType(), into);
            default -> { }
        }
    }
}
