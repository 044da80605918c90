package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalTableTest {
    @TempDir
    Path dir;

    private Tables tables() {
        return Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
    }

    @Test
    void everyColumnTypeRoundTripsThroughAnIndependentReader() {
        Tables tables = tables();
        String location = tables.defaultLocation("main", "fraud", "payments");
        DeltaTable table = tables.create(location, TestRows.RICH, Map.of(new PartitionKey("payments", 0), 0L));
        List<GenericRecord> rows = TestRows.rich(300);
        DataFile file = table.writeDataFile(rows);
        long version = table.commit(List.of(file), Map.of(new PartitionKey("payments", 0), new OffsetRange(0, 300)));

        assertThat(version).isEqualTo(1);
        List<Map<String, Object>> expected = rows.stream().map(TestRows::normal).toList();
        assertThat(IndependentReader.rows(location)).containsExactlyElementsOf(expected);
        assertThat(TestRows.readAll(tables, location)).containsExactlyElementsOf(expected);
        assertThat(table.positions()).containsExactly(Map.entry(new PartitionKey("payments", 0), 300L));
        TableSnapshot.Status status = table.status();
        assertThat(status.version()).isEqualTo(1);
        assertThat(status.numRecords()).isEqualTo(300);
        assertThat(status.lastCommitAt()).isPresent();
    }

    @Test
    void columnsAreSparkSqlTypes() {
        Tables tables = tables();
        String location = tables.defaultLocation("c", "s", "types");
        tables.create(location, TestRows.RICH, Map.of());
        List<Column> columns = tables.columns(location);
        assertThat(columns).extracting(Column::name).containsExactly(
                "key", "value", "stream_record_timestamp", "record_source", "kafka_topic", "kafka_partition", "kafka_offset");
        assertThat(columns.get(0)).isEqualTo(new Column("key", "string", true));
        assertThat(columns.get(1).type()).isEqualTo("struct<id:bigint,name:string,amount:decimal(20,2),big:decimal(20,0),"
                + "at:timestamp,local_at:timestamp_ntz,day:date,ok:boolean,ratio:double,score:float,small:int,raw:binary,"
                + "kind:string,tags:array<string>,attrs:map<string,bigint>,"
                + "address:struct<city:string,zip:int,geo:struct<lat:double>>,lines:array<struct<sku:string,qty:int>>>");
        assertThat(columns.get(2)).isEqualTo(new Column("stream_record_timestamp", "timestamp", false));
        assertThat(columns.get(5)).isEqualTo(new Column("kafka_partition", "int", true));
        assertThat(columns.get(6)).isEqualTo(new Column("kafka_offset", "bigint", true));
    }

    @Test
    void createTwiceOpenMissingAndDelete() {
        Tables tables = tables();
        String location = tables.defaultLocation("c", "s", "t");
        assertThat(tables.exists(location)).isFalse();
        assertThatThrownBy(() -> tables.open(location)).isInstanceOf(NoSuchTableException.class);
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of());
        assertThat(tables.exists(location)).isTrue();
        assertThatThrownBy(() -> tables.create(location, TestRows.SIMPLE, Map.of())).isInstanceOf(TableExistsException.class);
        table.commit(List.of(table.writeDataFile(TestRows.simple("t", 0, 0, 10))), Map.of());

        tables.delete(location);
        assertThat(tables.exists(location)).isFalse();
        assertThat(Files.exists(dir.resolve("warehouse/c/s/t"))).isFalse();
        tables.delete(location); // absent: no error
    }

    @Test
    void positionsAreCheckedAndConflictsCommitNothing() {
        Tables tables = tables();
        String location = tables.defaultLocation("c", "s", "positions");
        PartitionKey p0 = new PartitionKey("tx.eu", 0);
        PartitionKey p1 = new PartitionKey("tx.eu", 1);
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of(p0, 100L));
        assertThat(tables.open(location).positions()).containsExactly(Map.entry(p0, 100L));

        table.commit(List.of(table.writeDataFile(TestRows.simple("tx.eu", 0, 100, 110))), Map.of(p0, new OffsetRange(100, 110)));
        // A partition the table has no position for yet is accepted from anywhere.
        table.commit(List.of(table.writeDataFile(TestRows.simple("tx.eu", 1, 5, 8))), Map.of(p1, new OffsetRange(5, 8)));
        long before = table.status().version();

        // A redelivered batch (or a writer that lost a race) starts at an offset the table already moved past.
        DataFile stale = table.writeDataFile(TestRows.simple("tx.eu", 0, 100, 110));
        assertThatThrownBy(() -> table.commit(List.of(stale), Map.of(p0, new OffsetRange(100, 110), p1, new OffsetRange(8, 9))))
                .isInstanceOfSatisfying(PositionConflictException.class,
                        e -> assertThat(e.committed()).containsExactlyInAnyOrderEntriesOf(Map.of(p0, 110L, p1, 8L)));

        assertThat(table.status().version()).isEqualTo(before);
        assertThat(table.positions()).containsExactlyInAnyOrderEntriesOf(Map.of(p0, 110L, p1, 8L));
        assertThat(IndependentReader.rows(location)).hasSize(13);
    }

    @Test
    void checkpointEveryTenCommitsAndReadableAfterwards() throws Exception {
        Tables tables = tables();
        String location = tables.defaultLocation("c", "s", "checkpointed");
        PartitionKey p = new PartitionKey("t", 0);
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of(p, 0L));
        List<GenericRecord> all = new ArrayList<>();
        for (int i = 0; i < 23; i++) {
            List<GenericRecord> rows = TestRows.simple("t", 0, i * 5L, i * 5L + 5);
            all.addAll(rows);
            table.commit(List.of(table.writeDataFile(rows)), Map.of(p, new OffsetRange(i * 5L, i * 5L + 5)));
        }
        Path log = dir.resolve("warehouse/c/s/checkpointed/_delta_log");
        assertThat(log.resolve("00000000000000000010.checkpoint.parquet")).exists();
        assertThat(log.resolve("00000000000000000020.checkpoint.parquet")).exists();
        assertThat(Files.readString(log.resolve("_last_checkpoint"))).contains("\"version\":20");

        // Readers start from the checkpoint; take the commits before it away to prove it.
        for (int v = 0; v < 20; v++) {
            Files.delete(log.resolve(String.format("%020d.json", v)));
        }
        assertThat(tables.open(location).positions()).containsExactly(Map.entry(p, 115L));
        List<Map<String, Object>> read = IndependentReader.rows(location);
        read.sort(Comparator.comparing(r -> (Long) r.get("kafka_offset")));
        assertThat(read).containsExactlyElementsOf(all.stream().map(TestRows::normal).toList());
        assertThat(tables.open(location).status().numRecords()).isEqualTo(115);
    }

    @Test
    void rowsOfAnotherSchemaAreRejected() {
        Tables tables = tables();
        String location = tables.defaultLocation("c", "s", "strict");
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of());
        assertThatThrownBy(() -> table.writeDataFile(TestRows.rich(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be written to");
    }
}
