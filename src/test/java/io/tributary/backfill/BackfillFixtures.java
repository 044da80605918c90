package io.tributary.backfill;

import io.restassured.path.json.JsonPath;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import io.tributary.testing.Api;
import io.tributary.testing.StreamRequests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * The Spark-written fixture tables (bench/backfill/fixtures writes them: row i has key {@code key-i}, value
 * {transaction_id: tx-(i % 50) or NULL when i % 10 = 7, amount: 10 i (INT), note}, stream_record_timestamp
 * 2026-01-01T00:00Z + i min + 123 µs, kafka_topic legacy, kafka_partition i % 3, kafka_offset i; rows with
 * i % 13 = 0 deleted), ingestion tables made like the ingest pipeline makes them, and the reference merge the
 * results are compared with.
 */
public final class BackfillFixtures {
    static final Instant BASE = Instant.parse("2026-01-01T00:00:00Z");
    static final String TOPIC = "tx";
    static final PartitionKey P0 = new PartitionKey(TOPIC, 0);

    /** The tx streams' value: like tx_history's, but amount is LONG, there is no note and there is a currency. */
    static final StreamSchema TX_STREAM = StreamSchema.of(
            SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
            SideSchema.compile(new SchemaSource.JsonSchema("""
                    {"type": "object", "properties": {"transaction_id": {"type": "string"},
                      "amount": {"type": "integer"}, "currency": {"type": "string"}}}"""), "payload_schema"));

    static final StreamSchema PLAIN_STREAM = StreamSchema.of(
            SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
            SideSchema.compile(new SchemaSource.Plain(), "payload_schema"));

    private BackfillFixtures() {}

    /** Copies a fixture table into {@code dir} so a test may not change the committed one. */
    static String copy(String name, Path dir) {
        try {
            Path from = Path.of(BackfillFixtures.class.getResource("/backfill-fixtures/" + name).toURI());
            Path to = dir.resolve(name);
            try (Stream<Path> files = Files.walk(from)) {
                for (Path p : files.toList()) {
                    Path target = to.resolve(from.relativize(p).toString());
                    if (Files.isDirectory(p)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
            return to.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static long micros(Instant i) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, i);
    }

    /** A stream row of {@link #TX_STREAM}. */
    static GenericRecord txRow(String key, String txId, Long amount, Instant ts, long offset) {
        Schema row = TX_STREAM.rowSchema();
        Schema value = row.getField("value").schema().getTypes().get(1);
        GenericRecord v = new GenericData.Record(value);
        v.put("transaction_id", txId);
        v.put("amount", amount);
        v.put("currency", "EUR");
        return streamRow(row, key, v, micros(ts), TOPIC, offset);
    }

    /**
     * A stream row of a table of {@link #TX_STREAM}'s shape in that table's own row schema ({@code rowSchema}, e.g.
     * its {@code DeltaTable.rowSchema()}), amount 1, on {@code topic}'s partition 0.
     */
    public static GenericRecord txRow(Schema rowSchema, String key, String txId, Instant ts, String topic, long offset) {
        Schema value = rowSchema.getField("value").schema().getTypes().get(1);
        GenericRecord v = new GenericData.Record(value);
        v.put("transaction_id", txId);
        v.put("amount", 1L);
        v.put("currency", "EUR");
        return streamRow(rowSchema, key, v, ts, topic, offset);
    }

    static GenericRecord plainRow(String key, String value, Instant ts, long offset) {
        return streamRow(PLAIN_STREAM.rowSchema(), key, value, micros(ts), TOPIC, offset);
    }

    /** {@code timestamp}: what the row schema takes, microseconds or an {@link Instant}. */
    private static GenericRecord streamRow(Schema schema, String key, Object value, Object timestamp, String topic,
            long offset) {
        GenericRecord r = new GenericData.Record(schema);
        r.put("key", key);
        r.put("value", value);
        r.put("stream_record_timestamp", timestamp);
        r.put("record_source", "stream");
        r.put("kafka_topic", topic);
        r.put("kafka_partition", 0);
        r.put("kafka_offset", offset);
        return r;
    }

    /** Commits rows the way the ingest pipeline does: data plus the partition's next offset. */
    static void append(DeltaTable table, List<GenericRecord> rows) {
        append(table, rows, 0);
    }

    /** {@code decodeFailures}: how many of the rows' keys and values the ingest pipeline could not decode. */
    static void append(DeltaTable table, List<GenericRecord> rows, long decodeFailures) {
        long from = table.positions().get(P0);
        table.commit(List.of(table.writeDataFile(rows)),
                Map.of(P0, new OffsetRange(from, from + rows.size(), decodeFailures)));
    }

    /** A stream created through the API by {@link #createTxStreamWithHistory}, and the create's response. */
    public record ApiStream(String name, String topic, String source, JsonPath created) {}

    /**
     * Creates {@code main.<schema>.tx} through the API as ROOT: JSON transactions on a new one-partition topic of the
     * broker at {@code bootstrap}, deduplicated on {@code value.transaction_id}, with the Spark-written tx_history
     * (copied to {@code main.<schema>.tx_history}'s default location) as its backfill source.
     */
    public static ApiStream createTxStreamWithHistory(Tables tables, String bootstrap, String schema) throws Exception {
        String source = tables.defaultLocation("main", schema, "tx_history");
        copy("tx_history", Path.of(source.replaceFirst("^file:", "")).getParent());
        String connection = Api.unique("kafka");
        Api.as(Api.ROOT).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        String topic = Api.unique("tx");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        String name = "main." + schema + ".tx";
        var body = StreamRequests.valid(name, connection, topic);
        StreamRequests.with(body, "schema_config.direct_schemas.payload_schema.json_schema", """
                {"type": "object", "properties": {"transaction_id": {"type": "string"},
                  "amount": {"type": "integer"}, "currency": {"type": "string"}}}""");
        StreamRequests.with(body, "ingestion_config.backfill_source.delta_table_name", "main." + schema + ".tx_history");
        StreamRequests.with(body, "ingestion_config.deduplication_columns", List.of("value.transaction_id"));
        JsonPath created = Api.as(Api.ROOT).body(body.toString()).post("/api/2.0/feature-engineering/streams").then()
                .statusCode(200).extract().jsonPath();
        return new ApiStream(name, topic, source, created);
    }

    static DeltaTable createIngestion(Tables tables, String location, StreamSchema stream) {
        return tables.create(location, stream.rowSchema(), Map.of(P0, 0L));
    }

    /**
     * What {@code MERGE INTO ingestion USING source ON <dedup null-safe equal> WHEN NOT MATCHED THEN INSERT} with
     * in-source duplicates collapsed to their first row yields: the ingestion rows plus the inserted ones.
     *
     * @param toIngestion maps a source row to the row it becomes in the ingestion table
     */
    static List<Map<String, Object>> referenceMerge(List<Map<String, Object>> ingestion, List<Map<String, Object>> source,
            List<String> dedupPaths, Function<Map<String, Object>, Map<String, Object>> toIngestion) {
        Set<List<Object>> seen = new HashSet<>();
        for (Map<String, Object> r : ingestion) {
            seen.add(key(r, dedupPaths));
        }
        List<Map<String, Object>> out = new ArrayList<>(ingestion);
        for (Map<String, Object> s : source) {
            Map<String, Object> row = toIngestion.apply(s);
            if (seen.add(key(row, dedupPaths))) {
                out.add(row);
            }
        }
        return out;
    }

    /** A multiset of rows; AssertJ's any-order comparison is quadratic, too slow for tens of thousands of rows. */
    static Map<Map<String, Object>, Long> counts(List<Map<String, Object>> rows) {
        Map<Map<String, Object>, Long> out = new java.util.HashMap<>();
        rows.forEach(r -> out.merge(r, 1L, Long::sum));
        return out;
    }

    static List<Object> key(Map<String, Object> row, List<String> paths) {
        List<Object> key = new ArrayList<>();
        for (String p : paths) {
            Object v = row;
            for (String part : p.split("\\.")) {
                v = v instanceof Map<?, ?> m ? m.get(part) : null;
            }
            key.add(v);
        }
        return key;
    }

    /** tx_history row → tx ingestion row: amount widened, currency absent, note dropped, Kafka columns kept. */
    static Map<String, Object> txFromHistory(Map<String, Object> s) {
        @SuppressWarnings("unchecked")
        Map<String, Object> sv = (Map<String, Object>) s.get("value");
        Map<String, Object> v = null;
        if (sv != null) {
            v = new LinkedHashMap<>();
            v.put("transaction_id", sv.get("transaction_id"));
            v.put("amount", sv.get("amount") == null ? null : ((Integer) sv.get("amount")).longValue());
            v.put("currency", null);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("key", s.get("key"));
        r.put("value", v);
        r.put("stream_record_timestamp", s.get("stream_record_timestamp"));
        r.put("record_source", "backfill");
        r.put("kafka_topic", s.get("kafka_topic"));
        r.put("kafka_partition", s.get("kafka_partition"));
        r.put("kafka_offset", s.get("kafka_offset"));
        return r;
    }

    /** plain_history row → plain ingestion row: no Kafka columns in the source, so they are NULL. */
    static Map<String, Object> plainFromHistory(Map<String, Object> s) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("key", s.get("key"));
        r.put("value", s.get("value"));
        r.put("stream_record_timestamp", s.get("stream_record_timestamp"));
        r.put("record_source", "backfill");
        r.put("kafka_topic", null);
        r.put("kafka_partition", null);
        r.put("kafka_offset", null);
        return r;
    }
}
