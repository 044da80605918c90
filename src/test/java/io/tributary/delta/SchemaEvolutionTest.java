package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SchemaEvolutionTest {
    private static final String V1 = """
            {"type":"record","name":"Tx","fields":[{"name":"id","type":["null","long"]}]}""";
    private static final String V2 = """
            {"type":"record","name":"Tx","fields":[{"name":"id","type":["null","long"]},
              {"name":"note","type":["null","string"]}]}""";

    @TempDir
    Path dir;

    @Test
    void addedNullableFieldIsReadAsNullFromOlderFilesAndWrittenAfterwards() {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        String location = tables.defaultLocation("main", "s", "evolving");
        Schema v1 = TestRows.rowSchema("{\"type\":\"string\"}", V1);
        Schema v2 = TestRows.rowSchema("{\"type\":\"string\"}", V2);
        PartitionKey p = new PartitionKey("t", 0);
        DeltaTable table = tables.create(location, v1, Map.of(p, 0L));
        table.commit(List.of(table.writeDataFile(List.of(row(v1, 0, null)))), Map.of(p, new OffsetRange(0, 1)));

        assertThat(table.evolveSchema(v2)).contains(2L);
        assertThat(table.evolveSchema(v2)).isEmpty();
        table.commit(List.of(table.writeDataFile(List.of(row(v2, 1, "hello")))), Map.of(p, new OffsetRange(1, 2)));
        // An old-schema writer (another process not yet evolved) still lands; its rows read NULL for the new field.
        table.commit(List.of(table.writeDataFile(List.of(row(v1, 2, null)))), Map.of(p, new OffsetRange(2, 3)));

        assertThat(tables.columns(location).get(1).type()).isEqualTo("struct<id:bigint,note:string>");
        List<Map<String, Object>> rows = IndependentReader.rows(location);
        assertThat(rows).extracting(r -> r.get("value")).containsExactlyInAnyOrder(
                value(0L, null), value(1L, "hello"), value(2L, null));
        assertThat(table.positions()).containsEntry(p, 3L);
    }

    @Test
    void droppingOrRetypingAColumnIsRefusedNamingIt() {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        String location = tables.defaultLocation("main", "s", "strict");
        DeltaTable table = tables.create(location, TestRows.rowSchema("{\"type\":\"string\"}", V2), Map.of());
        assertThatThrownBy(() -> table.evolveSchema(TestRows.rowSchema("{\"type\":\"string\"}", V1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("`value.note` would be dropped");
        assertThatThrownBy(() -> table.evolveSchema(TestRows.rowSchema("{\"type\":\"string\"}",
                V2.replace("\"string\"]}]", "\"int\"]}]"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("`value.note` would change its type");
        assertThat(IndependentReader.version(location)).isEqualTo(0);
    }

    private static Map<String, Object> value(long id, String note) {
        Map<String, Object> m = new java.util.HashMap<>();
        m.put("id", id);
        m.put("note", note);
        return m;
    }

    private static GenericRecord row(Schema rowSchema, long offset, String note) {
        Schema valueSchema = rowSchema.getField("value").schema().getTypes().get(1);
        GenericRecord value = new GenericData.Record(valueSchema);
        value.put("id", offset);
        if (note != null) {
            value.put("note", note);
        }
        GenericRecord r = new GenericData.Record(rowSchema);
        r.put("key", "k" + offset);
        r.put("value", value);
        r.put("stream_record_timestamp", 1_000L * offset);
        r.put("record_source", "stream");
        r.put("kafka_topic", "t");
        r.put("kafka_partition", 0);
        r.put("kafka_offset", offset);
        return r;
    }
}
