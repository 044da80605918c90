package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Columns of distinct values are learnt and written plain; repetitive ones keep their dictionary; rows unchanged. */
class DictionaryChoicesTest {

    @TempDir
    Path warehouse;

    @Test
    void distinctColumnsAreWrittenPlainAfterTheFirstFileAndRelearnt() {
        Tables tables = Tables.forWarehouse(warehouse.toString(), Optional.empty());
        StreamSchema schema = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
                SideSchema.compile(new SchemaSource.JsonSchema("{\"type\":\"object\",\"properties\":{"
                        + "\"id\":{\"type\":\"integer\"},\"country\":{\"type\":\"string\"}}}"), "payload_schema"));
        String location = tables.defaultLocation("main", "s", "dict");
        tables.create(location, schema.rowSchema(), Map.of(new PartitionKey("t", 0), 0L));
        DeltaTable table = tables.open(location);
        DictionaryChoices choices = ((KernelDeltaTable) table).dictionaries();

        long offset = 0;
        for (int file = 0; file < DictionaryChoices.RELEARN_EVERY + 1; file++) {
            List<GenericRecord> rows = new ArrayList<>();
            for (int i = 0; i < 5_000; i++, offset++) {
                rows.add(row(schema.rowSchema(), offset));
            }
            DataFile written = table.writeDataFile(rows);
            table.commit(List.of(written), Map.of(new PartitionKey("t", 0), new OffsetRange(offset - 5_000, offset)));
            assertThat(choices.plainColumns()).as("after file %d", file)
                    .contains("kafka_offset", "value.id").doesNotContain("value.country", "kafka_topic");
        }
        long[] seen = new long[1];
        try (TableRows rows = tables.read(location)) {
            rows.forEachRemaining(r -> {
                long o = (Long) r.get("kafka_offset");
                assertThat(r.get("value")).isEqualTo(Map.of("id", o * 7919, "country", o % 3 == 0 ? "DE" : "FR"));
                seen[0]++;
            });
        }
        assertThat(seen[0]).isEqualTo(offset);
    }

    private static GenericRecord row(Schema rowSchema, long offset) {
        Schema valueSchema = rowSchema.getField("value").schema().getTypes().stream()
                .filter(s -> s.getType() == Schema.Type.RECORD).findFirst().orElseThrow();
        GenericData.Record value = new GenericData.Record(valueSchema);
        value.put("id", offset * 7919);
        value.put("country", offset % 3 == 0 ? "DE" : "FR");
        GenericData.Record row = new GenericData.Record(rowSchema);
        row.put("key", null);
        row.put("value", value);
        row.put("stream_record_timestamp", 1_700_000_000_000_000L);
        row.put("record_source", new Utf8("stream"));
        row.put("kafka_topic", new Utf8("t"));
        row.put("kafka_partition", 0);
        row.put("kafka_offset", offset);
        return row;
    }
}
