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

    /**
     * Another process widened the table before this one opened it (another server's pipeline met a new registry
     * version first; this server's pipeline reopened its consumer): rows of the narrower schema still land, the new
     * field NULL, as they do through a handle opened before the widening. Before, a handle opened after it refused them
     * ("rows of schema … cannot be written to …"), and the stream was FAILED until it retried with the wider schema.
     */
    @Test
    void aHandleOpenedAfterAnotherWriterWidenedTheTableTakesRowsOfTheNarrowerSchema() {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        String location = tables.defaultLocation("main", "s", "widened");
        Schema v1 = TestRows.rowSchema("{\"type\":\"string\"}", V1);
        Schema v2 = TestRows.rowSchema("{\"type\":\"string\"}", V2);
        PartitionKey p = new PartitionKey("t", 0);
        tables.create(location, v1, Map.of(p, 0L));
        assertThat(tables.open(location).evolveSchema(v2)).contains(1L);

        DeltaTable opened = tables.open(location);
        opened.commit(List.of(opened.writeDataFile(List.of(row(v1, 0, null)))), Map.of(p, new OffsetRange(0, 1)));
        opened.commit(List.of(opened.writeDataFile(List.of(row(v2, 1, "wide")))), Map.of(p, new OffsetRange(1, 2)));

        assertThat(IndependentReader.rows(location)).extracting(r -> r.get("value"))
                .containsExactlyInAnyOrder(value(0L, null), value(1L, "wide"));
        assertThat(tables.columns(location).get(1).type()).isEqualTo("struct<id:bigint,note:string>");
    }

    /** A row schema that is not a part of the table's (a field the table lacks, or of another type) stays refused. */
    @Test
    void rowsWithAFieldTheTableLacksOrRetypesAreRefused() {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        String location = tables.defaultLocation("main", "s", "narrow");
        Schema v1 = TestRows.rowSchema("{\"type\":\"string\"}", V1);
        Schema v2 = TestRows.rowSchema("{\"type\":\"string\"}", V2);
        tables.create(location, v1, Map.of());
        assertThatThrownBy(() -> tables.open(location).writeDataFile(List.of(row(v2, 0, "x"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be written to");
        Schema retyped = TestRows.rowSchema("{\"type\":\"string\"}", V1.replace("\"long\"", "\"string\""));
        GenericRecord row = row(v1, 0, null);
        GenericRecord value = new GenericData.Record(retyped.getField("value").schema().getTypes().get(1));
        value.put("id", "0");
        GenericRecord r = new GenericData.Record(retyped);
        retyped.getFields().forEach(f -> r.put(f.name(), row.get(f.name())));
        r.put("value", value);
        assertThatThrownBy(() -> tables.open(location).writeDataFile(List.of(r)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be written to");
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
