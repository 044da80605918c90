package io.tributary.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.IndependentReader;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.delta.WriteGuard;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rescued rows on a real Delta table, read back with Kernel's stock engine: both sides rescued with their bytes,
 * exactly once under redelivery, carried by compaction, and a replay that finds nothing new commits nothing.
 */
class RescuedRecordsTest {
    private static final String JSON = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"}}}";

    @TempDir
    Path warehouse;
    Tables tables;
    StreamSchema schema;
    String location;

    @BeforeEach
    void createTable() {
        tables = Tables.forWarehouse(warehouse.toString(), Optional.empty());
        schema = StreamSchema.of(SideSchema.compile(new SchemaSource.JsonSchema(JSON), "key_schema"),
                SideSchema.compile(new SchemaSource.JsonSchema(JSON), "payload_schema"), true);
        location = tables.defaultLocation("main", "s", "t");
        tables.create(location, schema.rowSchema(), Map.of(new PartitionKey("t", 0), 0L));
    }

    StreamIngester ingester() {
        return new StreamIngester(tables.open(location), schema);
    }

    static MicroBatch batch(long from, long to) {
        MicroBatch.Builder b = MicroBatch.builder();
        for (long o = from; o < to; o++) {
            // offset % 4: 0 good, 1 bad value, 2 bad key, 3 both bad
            String key = o % 4 >= 2 ? "k" + o : "{\"id\":" + o + "}";
            String value = o % 4 == 1 || o % 4 == 3 ? "v" + o : "{\"id\":" + o + "}";
            b.add(new SourceRecord("t", 0, o, 1_700_000_000_000L + o, key.getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8)));
        }
        return b.build();
    }

    List<Map<String, Object>> rows() {
        List<Map<String, Object>> out = new ArrayList<>(IndependentReader.rows(location));
        out.sort(Comparator.comparing(r -> (Long) r.get("kafka_offset")));
        return out;
    }

    @Test
    void eachFailedSideIsRescuedWithBothRawSidesOnceAndCompactionKeepsThem() {
        StreamIngester ingester = ingester();
        assertThat(ingester.ingest(batch(0, 8))).isPresent();
        assertThat(ingester.ingest(batch(8, 12))).isPresent();
        // Redelivered, by this writer and by a new one: no row, so no rescue, is added twice.
        assertThat(ingester.ingest(batch(0, 12))).isEmpty();
        assertThat(ingester().ingest(batch(4, 12))).isEmpty();

        List<Map<String, Object>> rows = rows();
        assertThat(rows).hasSize(12);
        for (Map<String, Object> r : rows) {
            long o = (Long) r.get("kafka_offset");
            Map<?, ?> rescued = (Map<?, ?>) r.get(StreamSchema.RESCUED_DATA);
            if (o % 4 == 0) {
                assertThat(rescued).as("offset %d", o).isNull();
                assertThat(r.get("value")).isEqualTo(Map.of("id", o));
                continue;
            }
            String key = o % 4 >= 2 ? "k" + o : "{\"id\":" + o + "}";
            String value = o % 4 == 1 || o % 4 == 3 ? "v" + o : "{\"id\":" + o + "}";
            assertThat(rescued.get("key")).isEqualTo(hex(key));
            assertThat(rescued.get("value")).isEqualTo(hex(value));
            assertThat(rescued.get("side")).isEqualTo(o % 4 == 1 ? "value" : o % 4 == 2 ? "key" : "key,value");
            if (o % 4 == 3) {
                assertThat((String) rescued.get("error")).startsWith("key: ").contains("; value: ");
                assertThat(r.get("key")).isNull();
                assertThat(r.get("value")).isNull();
            } else if (o % 4 == 2) {
                assertThat(r.get("key")).isNull();
                assertThat(r.get("value")).isEqualTo(Map.of("id", o));
            } else {
                assertThat(r.get("key")).isEqualTo(Map.of("id", o));
                assertThat(r.get("value")).isNull();
            }
        }
        assertThat(RescuedRecords.count(tables.open(location))).isEqualTo(9);
        assertThat(tables.open(location).status().decodeFailures()).isEqualTo(12);

        // Compaction rewrites the two files into one: every row, rescued bytes included, stays as it was.
        assertThat(tables.open(location).compact(128L << 20)).isPresent();
        assertThat(tables.dataFiles(location)).hasSize(1);
        assertThat(rows()).isEqualTo(rows);
        assertThat(RescuedRecords.count(tables.open(location))).isEqualTo(9);

        // The schema did not change: nothing decodes now, nothing is committed.
        long version = IndependentReader.version(location);
        RescuedRecords.Replay replay = RescuedRecords.replay(tables.open(location), schema, WriteGuard.NONE);
        assertThat(replay.replayed()).isZero();
        assertThat(replay.stillUndecodable()).isEqualTo(9);
        assertThat(replay.tableVersion()).isEqualTo(version);
        assertThat(IndependentReader.version(location)).isEqualTo(version);
    }

    @Test
    void aStreamWithoutRescueKeepsTheSevenColumns() {
        StreamSchema plain = StreamSchema.of(SideSchema.compile(new SchemaSource.JsonSchema(JSON), "key_schema"),
                SideSchema.compile(new SchemaSource.JsonSchema(JSON), "payload_schema"));
        assertThat(plain.rowSchema().getFields()).extracting(f -> f.name()).containsExactlyElementsOf(Rows.COLUMNS);
        assertThat(schema.rowSchema().getFields()).extracting(f -> f.name())
                .containsExactlyElementsOf(Rows.RESCUING_COLUMNS);
    }

    private static String hex(String s) {
        return HexFormat.of().formatHex(s.getBytes(StandardCharsets.UTF_8));
    }
}
