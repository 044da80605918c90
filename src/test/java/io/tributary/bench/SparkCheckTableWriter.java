package io.tributary.bench;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.CommitResult;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.StreamIngester;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * First half of bench/spark-check: writes an ingestion table through the real ingestion core (Avro value with nested
 * struct, array of structs, map, decimal, timestamp and date; plain string key) and, next to it, the rows Spark must
 * read back as JSON lines. The expected rows are computed from the generator, never read from the table, so the check
 * stays independent of Tributary's own reader.
 *
 * <p>JSON shape shared with the Spark side: struct fields in column order, map keys sorted, decimals as plain strings,
 * timestamps as {@link Instant#toString()}, dates as {@link LocalDate#toString()}.
 */
public final class SparkCheckTableWriter {

    static final String TOPIC = "orders";
    static final int PARTITIONS = 2;
    /** Delta checkpoints every 10 commits; 12 batches after the create commit make version 12 with a checkpoint at 10. */
    static final int BATCHES = 12;
    static final int RECORDS_PER_PARTITION_PER_BATCH = 4;
    static final long BASE_MS = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
    /** The record at partition 1, offset 13 carries bytes that are not Avro: its row must have a NULL value. */
    static final int BAD_PARTITION = 1;
    static final long BAD_OFFSET = 13;

    static final String VALUE_SCHEMA = """
            {"type":"record","name":"Order","namespace":"bench","fields":[
              {"name":"id","type":"long"},
              {"name":"customer","type":{"type":"record","name":"Customer","fields":[
                {"name":"name","type":"string"},
                {"name":"tier","type":["null","int"],"default":null}]}},
              {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
                {"name":"sku","type":"string"},
                {"name":"qty","type":"int"}]}}},
              {"name":"attrs","type":{"type":"map","values":"long"}},
              {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}},
              {"name":"created","type":{"type":"long","logicalType":"timestamp-micros"}},
              {"name":"day","type":{"type":"int","logicalType":"date"}}]}
            """;

    private SparkCheckTableWriter() {}

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]).toAbsolutePath().normalize();
        deleteRecursively(out);
        Files.createDirectories(out);
        String location = out.resolve("table").toString();

        StreamSchema schema = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
                SideSchema.compile(new SchemaSource.Avro(VALUE_SCHEMA), "payload_schema"));
        Tables tables = Tables.forWarehouse(out.toString(), Optional.empty());
        Map<PartitionKey, Long> start = new LinkedHashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            start.put(new PartitionKey(TOPIC, p), 0L);
        }
        DeltaTable table = tables.create(location, schema.rowSchema(), start);
        StreamIngester ingester = new StreamIngester(table, schema);

        Schema avro = new Schema.Parser().parse(VALUE_SCHEMA);
        List<String> expected = new ArrayList<>();
        long decodeFailures = 0;
        long lastVersion = -1;
        for (int b = 0; b < BATCHES; b++) {
            MicroBatch.Builder batch = MicroBatch.builder();
            for (int p = 0; p < PARTITIONS; p++) {
                for (int i = 0; i < RECORDS_PER_PARTITION_PER_BATCH; i++) {
                    long offset = (long) b * RECORDS_PER_PARTITION_PER_BATCH + i;
                    batch.add(record(avro, p, offset, expected));
                }
            }
            CommitResult result = ingester.ingest(batch.build()).orElseThrow(
                    () -> new IllegalStateException("a batch of new offsets committed nothing"));
            decodeFailures += result.decodeFailures();
            lastVersion = result.tableVersion();
        }
        if (decodeFailures != 1) {
            throw new IllegalStateException("expected exactly one decode failure, got " + decodeFailures);
        }
        Files.write(out.resolve("expected.jsonl"), expected, StandardCharsets.UTF_8);
        System.out.printf("spark-check: wrote %d rows in %d commits to %s (latest version %d)%n",
                expected.size(), BATCHES, location, lastVersion);
    }

    /** The record at (partition, offset); appends the row it must become to {@code expected}. */
    private static SourceRecord record(Schema avro, int partition, long offset, List<String> expected) {
        long n = partition * 1000L + offset;
        long timestampMs = BASE_MS + n * 61_001L;
        // Every 9th record has no key, to check a NULL key column too.
        String key = n % 9 == 4 ? null : "order-" + n;

        Map<String, Object> value;
        byte[] bytes;
        if (partition == BAD_PARTITION && offset == BAD_OFFSET) {
            value = null;
            bytes = new byte[] {(byte) 0xFF}; // a varint whose continuation byte never comes
        } else {
            GenericData.Record customer = new GenericData.Record(avro.getField("customer").schema());
            customer.put("name", "customer \"" + (n % 7) + "\" ü");
            Integer tier = n % 3 == 0 ? null : (int) (n % 3);
            customer.put("tier", tier);

            List<GenericData.Record> lines = new ArrayList<>();
            List<Map<String, Object>> lineRows = new ArrayList<>();
            Schema lineSchema = avro.getField("lines").schema().getElementType();
            for (int l = 0; l < n % 3; l++) {
                GenericData.Record line = new GenericData.Record(lineSchema);
                line.put("sku", "sku-" + (n + l));
                line.put("qty", (int) (l + 1));
                lines.add(line);
                lineRows.add(ordered("sku", "sku-" + (n + l), "qty", l + 1));
            }
            Map<String, Long> attrs = new TreeMap<>();
            for (int a = 0; a < n % 4; a++) {
                attrs.put("a" + a, n * 10 + a);
            }
            // Negative amounts and values whose unscaled form needs a sign byte exercise the decimal bytes.
            BigDecimal amount = BigDecimal.valueOf((n % 2 == 0 ? 1 : -1) * (n * 12_345L + 128), 2);
            long createdMicros = BASE_MS * 1000 + n * 3_600_000_123L + (n % 1000);
            int day = (int) (LocalDate.of(2025, 12, 1).toEpochDay() + n);

            GenericData.Record rec = new GenericData.Record(avro);
            rec.put("id", n);
            rec.put("customer", customer);
            rec.put("lines", lines);
            rec.put("attrs", attrs);
            rec.put("amount", ByteBuffer.wrap(amount.unscaledValue().toByteArray()));
            rec.put("created", createdMicros);
            rec.put("day", day);
            bytes = encode(avro, rec);

            value = ordered(
                    "id", n,
                    "customer", ordered("name", customer.get("name"), "tier", tier),
                    "lines", lineRows,
                    "attrs", attrs,
                    "amount", amount.toPlainString(),
                    "created", Instant.EPOCH.plusNanos(createdMicros * 1000).toString(),
                    "day", LocalDate.ofEpochDay(day).toString());
        }
        Map<String, Object> row = ordered(
                "key", key,
                "value", value,
                "stream_record_timestamp", Instant.ofEpochMilli(timestampMs).toString(),
                "record_source", "stream",
                "kafka_topic", TOPIC,
                "kafka_partition", partition,
                "kafka_offset", offset);
        try {
            expected.add(JSON.writeValueAsString(row));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        return new SourceRecord(TOPIC, partition, offset, timestampMs,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8), bytes);
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    private static byte[] encode(Schema schema, GenericData.Record rec) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        try {
            new GenericDatumWriter<GenericData.Record>(schema).write(rec, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
