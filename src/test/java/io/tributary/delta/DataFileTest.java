package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataFileTest {
    @TempDir
    Path dir;

    /**
     * Spark's vectorized Parquet reader (its default) fails on BINARY decimals of precision up to 18; parquet-avro
     * writes an Avro bytes decimal as BINARY, so data files carry decimals on FIXED_LEN_BYTE_ARRAY instead.
     */
    @Test
    void decimalsAreWrittenOnFixedLengthBytes() throws Exception {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        DeltaTable table = tables.create(tables.defaultLocation("c", "s", "dec"), TestRows.RICH, Map.of());
        DataFile file = table.writeDataFile(TestRows.rich(5));

        try (ParquetFileReader reader = ParquetFileReader.open(
                new LocalInputFile(dir.resolve("c/s/dec").resolve(file.path())))) {
            PrimitiveType amount = reader.getFileMetaData().getSchema()
                    .getType("value").asGroupType().getType("amount").asPrimitiveType();
            assertThat(amount.getPrimitiveTypeName()).isEqualTo(PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY);
            assertThat(amount.getTypeLength()).isEqualTo(ParquetDataFiles.fixedBytes(20));
            assertThat(amount.getLogicalTypeAnnotation()).isEqualTo(LogicalTypeAnnotation.decimalType(2, 20));
        }
        assertThat(List.of(ParquetDataFiles.fixedBytes(1), ParquetDataFiles.fixedBytes(2), ParquetDataFiles.fixedBytes(9),
                ParquetDataFiles.fixedBytes(18), ParquetDataFiles.fixedBytes(38))).containsExactly(1, 1, 4, 8, 16);
    }

    @Test
    void statisticsCoverNestedLeavesWithDeltaFormats() throws Exception {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        DeltaTable table = tables.create(tables.defaultLocation("c", "s", "stats"), TestRows.RICH, Map.of());
        List<GenericRecord> rows = TestRows.rich(50);
        DataFile file = table.writeDataFile(rows);

        assertThat(file.numRecords()).isEqualTo(50);
        assertThat(file.path()).endsWith(".snappy.parquet").doesNotContain("/");
        assertThat(Files.size(dir.resolve("c/s/stats").resolve(file.path()))).isEqualTo(file.sizeBytes());
        JsonNode stats = new ObjectMapper().readTree(file.statsJson());
        assertThat(stats.get("numRecords").asLong()).isEqualTo(50);
        JsonNode min = stats.get("minValues");
        JsonNode max = stats.get("maxValues");
        JsonNode nulls = stats.get("nullCount");
        assertThat(min.at("/value/id").asLong()).isEqualTo(-1000);
        assertThat(max.at("/value/id").asLong()).isEqualTo(49 * 7919 - 1000);
        assertThat(min.at("/value/address/city").asText()).isEqualTo("city-0");
        assertThat(max.at("/value/address/city").asText()).isEqualTo("city-9");
        assertThat(min.at("/value/address/geo/lat").asDouble()).isEqualTo(45.0);
        assertThat(min.at("/value/amount").decimalValue()).isEqualByComparingTo("-0.99");
        assertThat(max.at("/value/big").decimalValue()).isEqualByComparingTo("18446744073709551614");
        // Delta writes timestamps as ISO-8601 in UTC, truncated to milliseconds.
        assertThat(min.at("/value/at").asText()).isEqualTo("2025-06-30T23:59:59.999Z");
        assertThat(min.at("/value/local_at").asText()).isEqualTo("2025-01-01T08:00:00");
        assertThat(min.at("/value/day").asText()).isEqualTo("2024-02-29");
        assertThat(min.at("/stream_record_timestamp").asText()).isEqualTo("2026-03-01T12:00:00Z".replace("Z", ".000Z"));
        assertThat(min.at("/kafka_offset").asLong()).isZero();
        assertThat(max.at("/kafka_offset").asLong()).isEqualTo(49);
        // Booleans, binaries, arrays and maps: null counts only.
        assertThat(min.at("/value/ok").isMissingNode()).isTrue();
        assertThat(min.at("/value/tags").isMissingNode()).isTrue();
        assertThat(nulls.at("/value/raw").asLong()).isEqualTo(rows.stream().filter(r -> r.get("value") != null
                && ((GenericRecord) r.get("value")).get("raw") == null).count() + 1);
        // Leaves of a null struct are null: value is null in row 3, address in rows 1, 7, 13, ...
        long nullZips = rows.stream().filter(r -> {
            GenericRecord v = (GenericRecord) r.get("value");
            GenericRecord a = v == null ? null : (GenericRecord) v.get("address");
            return a == null || a.get("zip") == null;
        }).count();
        assertThat(nulls.at("/value/address/zip").asLong()).isEqualTo(nullZips);
        assertThat(nulls.at("/value/address/geo/lat").asLong()).isEqualTo(rows.stream().filter(r -> {
            GenericRecord v = (GenericRecord) r.get("value");
            return v == null || v.get("address") == null;
        }).count());
        assertThat(nulls.at("/key").asLong()).isEqualTo(5);
        // Long strings keep a 32-character prefix; the max gets a tie-breaker so it still bounds the values.
        List<String> names = rows.stream().map(r -> (GenericRecord) r.get("value"))
                .filter(v -> v != null && v.get("name") != null).map(v -> v.get("name").toString())
                .sorted(java.util.Comparator.comparing(n -> n.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        java.util.Arrays::compareUnsigned))
                .toList();
        assertThat(names).allSatisfy(n -> assertThat(n).hasSizeGreaterThan(32));
        assertThat(min.at("/value/name").asText()).isEqualTo(names.get(0).substring(0, 32));
        assertThat(max.at("/value/name").asText()).hasSize(33)
                .isEqualTo(StringStats.truncateMax(names.get(names.size() - 1)));
    }

    @Test
    void maxStringTruncationFollowsDelta() {
        String ascii = "a".repeat(40);
        assertThat(StringStats.truncateMax(ascii)).isEqualTo("a".repeat(32) + "\u007f");
        assertThat(StringStats.truncateMin(ascii)).isEqualTo("a".repeat(32));
        String high = "a".repeat(32) + "é" + "z";
        assertThat(StringStats.truncateMax(high)).isEqualTo("a".repeat(32) + "\uDBFF\uDFFF");
        String surrogate = "a".repeat(31) + "𝄞" + "bbb";
        assertThat(StringStats.truncateMin(surrogate)).isEqualTo("a".repeat(31) + "𝄞");
        assertThat(StringStats.truncateMax(surrogate)).isEqualTo("a".repeat(31) + "𝄞" + "\u007f");
        String maxChars = "a".repeat(32) + "\uDBFF\uDFFF".repeat(40);
        assertThat(StringStats.truncateMax(maxChars)).isNull();
        assertThat(StringStats.truncateMax("short")).isEqualTo("short");
    }

    /**
     * 100k rows of ~130 bytes in one data file and one commit. How fast (the SPEC target: about 0.6 s on a 2-core
     * machine) is for WriterBench, not asserted here: a wall-clock limit in a unit test measures the neighbours.
     */
    @Test
    void writesOneHundredThousandRowsInOneFile() {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        String location = tables.defaultLocation("c", "s", "perf");
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of());
        List<GenericRecord> rows = new ArrayList<>();
        long base = TestRows.micros(Instant.parse("2026-01-01T00:00:00Z"));
        for (int i = 0; i < 100_000; i++) {
            GenericRecord r = new GenericData.Record(TestRows.SIMPLE);
            r.put("key", "customer-" + (i % 5000));
            r.put("value", "{\"id\":" + i + ",\"amount\":" + (i * 7 % 10000) + ",\"currency\":\"EUR\",\"ok\":true}");
            r.put("stream_record_timestamp", base + i * 997L);
            r.put("record_source", "stream");
            r.put("kafka_topic", "transactions");
            r.put("kafka_partition", i % 6);
            r.put("kafka_offset", (long) i);
            rows.add(r);
        }
        DataFile file = table.writeDataFile(rows);
        table.commit(List.of(file), Map.of());
        assertThat(file.numRecords()).isEqualTo(100_000);
        assertThat(table.status().numRecords()).isEqualTo(100_000);
    }

    /** Kernel's data skipping reads the statistics: a file whose bounds exclude the filter is not scanned. */
    @Test
    void kernelSkipsFilesByTheseStatistics() throws Exception {
        KernelTables tables = new KernelTables(new Warehouse(dir.toString(), Optional.empty()), new LocalStorage());
        String location = tables.defaultLocation("c", "s", "skipping");
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of());
        for (int i = 0; i < 3; i++) {
            table.commit(List.of(table.writeDataFile(TestRows.simple("t", 0, i * 10L, i * 10L + 10))), Map.of());
        }
        io.delta.kernel.Snapshot snapshot = tables.latest(tables.qualify(location));
        assertThat(scanFiles(tables, snapshot, new io.delta.kernel.expressions.Predicate(">=",
                new io.delta.kernel.expressions.Column("kafka_offset"), io.delta.kernel.expressions.Literal.ofLong(25)))).isEqualTo(1);
        long micros = TestRows.micros(Instant.parse("2026-01-01T00:00:00Z")) + 12 * 1_000_123L;
        assertThat(scanFiles(tables, snapshot, new io.delta.kernel.expressions.Predicate("<",
                new io.delta.kernel.expressions.Column("stream_record_timestamp"),
                io.delta.kernel.expressions.Literal.ofTimestamp(micros)))).isEqualTo(2);
        assertThat(scanFiles(tables, snapshot, new io.delta.kernel.expressions.Predicate("=",
                new io.delta.kernel.expressions.Column("value"), io.delta.kernel.expressions.Literal.ofString("value-t-0-99")))).isZero(); // above every file's max
    }

    private static int scanFiles(KernelTables tables, io.delta.kernel.Snapshot snapshot, io.delta.kernel.expressions.Predicate filter)
            throws Exception {
        int n = 0;
        try (io.delta.kernel.utils.CloseableIterator<io.delta.kernel.data.FilteredColumnarBatch> files =
                snapshot.getScanBuilder().withFilter(filter).build().getScanFiles(tables.engine())) {
            while (files.hasNext()) {
                try (io.delta.kernel.utils.CloseableIterator<io.delta.kernel.data.Row> rows = files.next().getRows()) {
                    while (rows.hasNext()) {
                        rows.next();
                        n++;
                    }
                }
            }
        }
        return n;
    }
}
