package io.tributary.backfill;

import static io.tributary.backfill.BackfillFixtures.BASE;
import static io.tributary.backfill.BackfillFixtures.append;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.Tables;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A backfill merge into the table of a stream with rescue on: rescued rows stay, merged rows have no rescue. */
class RescueColumnMergeTest {
    private static final Instant CREATED = Instant.parse("2026-01-02T00:00:00Z");
    static final StreamSchema RESCUING = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
            SideSchema.compile(new SchemaSource.Plain(), "payload_schema"), true);

    @TempDir
    Path dir;

    @Test
    void mergedRowsHaveNullRescueAndRescuedRowsKeepTheirBytes() {
        Tables tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
        String source = BackfillFixtures.copy("plain_history", dir);
        String location = tables.defaultLocation("main", "s", "rescuing");
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, RESCUING);
        append(table, List.of(
                row("k3", "v3", BASE.plus(Duration.ofMinutes(3)), 0, false),
                row("bad", null, BASE.plus(Duration.ofMinutes(40)), 1, true),
                // Early enough for the source (up to 00:11) to overlap the stream by more than an hour.
                row("early", "x", Instant.parse("2025-12-31T22:00:00Z"), 2, false)), 1);
        List<Map<String, Object>> before = io.tributary.delta.IndependentReader.rows(location);

        BackfillStatus status = new Backfill(tables, BackfillSettings.defaults(),
                Clock.fixed(CREATED, ZoneOffset.UTC)).run(new BackfillJob(location, source, List.of(), CREATED));

        assertThat(status.state()).isEqualTo(BackfillState.COMPLETED);
        List<Map<String, Object>> expected = BackfillFixtures.referenceMerge(before, io.tributary.delta.IndependentReader.rows(source),
                DedupKeys.DEFAULT, s -> {
                    Map<String, Object> r = new LinkedHashMap<>(BackfillFixtures.plainFromHistory(s));
                    r.put(StreamSchema.RESCUED_DATA, null);
                    return r;
                });
        List<Map<String, Object>> after = io.tributary.delta.IndependentReader.rows(location);
        assertThat(after).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(after).containsAll(before);
        assertThat(after.stream().filter(r -> r.get(StreamSchema.RESCUED_DATA) != null)).hasSize(1);
        assertThat(io.tributary.ingest.RescuedRecords.count(tables.open(location))).isEqualTo(1);
    }

    private static GenericRecord row(String key, String value, Instant ts, long offset, boolean rescued) {
        Schema schema = RESCUING.rowSchema();
        GenericRecord r = new GenericData.Record(schema);
        r.put("key", key);
        r.put("value", value);
        r.put("stream_record_timestamp", BackfillFixtures.micros(ts));
        r.put("record_source", "stream");
        r.put("kafka_topic", BackfillFixtures.TOPIC);
        r.put("kafka_partition", 0);
        r.put("kafka_offset", offset);
        if (rescued) {
            GenericRecord data = new GenericData.Record(StreamSchema.rescuedSchema());
            data.put("key", ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)));
            data.put("value", ByteBuffer.wrap(new byte[] {(byte) 0xff, 0}));
            data.put("error", "not UTF-8");
            data.put("side", "value");
            r.put(StreamSchema.RESCUED_DATA, data);
        }
        return r;
    }
}
