package io.tributary.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import io.tributary.delta.DataFile;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingestion hot path ({@link Rows} as a RowSource: fields emitted straight into Parquet, statistics from the
 * footer) writes the same files as the parquet-avro path ({@link Rows} as Avro rows, statistics row by row): the same
 * records go through both into two tables, which Delta Kernel's stock engine (not io.tributary.delta) reads back, and
 * their rows, Parquet schemas and committed statistics must be equal. Each format with nested structs, arrays, maps,
 * NULLs at every level, long and non-ASCII strings, NaN, unions (Protobuf: a oneof, a Timestamp, a wrapper), and
 * undecodable records; with rescue off and on. The old path decodes as before issue #17 (Protobuf through
 * DynamicMessage), the new one as ingestion does now.
 */
class DirectWriteTest {
    private static final Engine ENGINE = DefaultEngine.create(new Configuration());
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path warehouse;

    static final String JSON_SCHEMA = """
        {"type":"object","properties":{
          "id":{"type":"integer"},
          "name":{"type":"string"},
          "amount":{"type":"number"},
          "ok":{"type":"boolean"},
          "at":{"type":"string","format":"date-time"},
          "day":{"type":"string","format":"date"},
          "tags":{"type":"array","items":{"type":["string","null"]}},
          "address":{"type":"object","properties":{
            "city":{"type":"string"},
            "geo":{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}}}}},
          "lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"}}}},
          "extra":{}
        }}""";

    static final String AVRO_SCHEMA = """
        {"type":"record","name":"Order","namespace":"com.example","fields":[
          {"name":"id","type":"long"},
          {"name":"name","type":["null","string"],"default":null},
          {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":20,"scale":2}},
          {"name":"ratio","type":"float"},
          {"name":"score","type":["null","double"],"default":null},
          {"name":"ok","type":"boolean"},
          {"name":"raw","type":["null","bytes"],"default":null},
          {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
          {"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null},
          {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B","C"]}},
          {"name":"tags","type":{"type":"array","items":["null","string"]}},
          {"name":"counts","type":["null",{"type":"map","values":"long"}],"default":null},
          {"name":"address","type":["null",{"type":"record","name":"Address","fields":[
            {"name":"city","type":"string"},
            {"name":"zip","type":["null","int"],"default":null},
            {"name":"history","type":["null",{"type":"array","items":"int"}],"default":null}]}],"default":null}
        ]}""";

    static final String PROTO_SCHEMA = """
        syntax = "proto3";
        package com.example;
        import "google/protobuf/timestamp.proto";
        import "google/protobuf/wrappers.proto";

        message Order {
          int64 id = 1;
          string name = 2;
          double amount = 3;
          float ratio = 4;
          bool ok = 5;
          bytes raw = 6;
          Address address = 7;
          repeated string tags = 8;
          map<string, int64> counts = 9;
          Kind kind = 10;
          repeated Address past = 11;
          oneof pay { string card = 12; Address billing = 13; }
          google.protobuf.Timestamp at = 14;
          google.protobuf.Int64Value maybe = 15;
          enum Kind { A = 0; B = 1; }
        }

        message Address {
          string city = 1;
          int32 zip = 2;
        }
        """;

    static Stream<Arguments> formats() {
        return Stream.of(false, true).flatMap(rescue -> Stream.of(
                Arguments.of("json", new SchemaSource.JsonSchema(JSON_SCHEMA), (IntFunction<byte[]>) DirectWriteTest::json,
                        rescue),
                Arguments.of("avro", new SchemaSource.Avro(AVRO_SCHEMA), (IntFunction<byte[]>) DirectWriteTest::avro,
                        rescue),
                Arguments.of("protobuf", new SchemaSource.Protobuf(PROTO_SCHEMA, "com.example.Order"),
                        (IntFunction<byte[]>) DirectWriteTest::proto, rescue)));
    }

    @ParameterizedTest(name = "{0}, rescue {3}")
    @MethodSource("formats")
    void bothPathsWriteTheSameFiles(String format, SchemaSource value, IntFunction<byte[]> payload, boolean rescue)
            throws Exception {
        StreamSchema schema = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
                SideSchema.compile(value, "payload_schema"), rescue);
        List<List<SourceRecord>> records = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            List<SourceRecord> partition = new ArrayList<>();
            for (int o = 0; o < 300; o++) {
                int i = p * 1000 + o;
                byte[] key = o % 11 == 3 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
                byte[] bytes = o % 17 == 5 ? null : o % 13 == 7 ? "\u0001garbage{".getBytes(StandardCharsets.UTF_8)
                        : payload.apply(i);
                if (bytes != null && o % 19 == 2) {
                    // Fails late, after the decoder has read several fields: nothing of the value may be written.
                    bytes = Arrays.copyOf(bytes, bytes.length * 2 / 3);
                }
                partition.add(new SourceRecord(p == 0 ? "orders" : "orders-eu", p, o, 1_760_000_000_000L + i * 997L,
                        key, bytes));
            }
            records.add(partition);
        }
        Tables tables = Tables.forWarehouse(warehouse.toString(), Optional.empty());
        String oldLocation = tables.defaultLocation("c", "s", format + "_old");
        String newLocation = tables.defaultLocation("c", "s", format + "_new");
        DeltaTable oldTable = tables.create(oldLocation, schema.rowSchema(), Map.of(new PartitionKey("orders", 0), 0L));
        DeltaTable newTable = tables.create(newLocation, schema.rowSchema(), Map.of(new PartitionKey("orders", 0), 0L));

        // The path before issue #17 decodes as it did then too (Protobuf through DynamicMessage).
        Rows oldRows;
        System.setProperty("tributary.ingest.direct-write", "false");
        try {
            oldRows = new Rows(schema.rowSchema(), schema.keySide().newDecoder(), schema.valueSide().newDecoder(),
                    records);
        } finally {
            System.clearProperty("tributary.ingest.direct-write");
        }
        DataFile oldFile = oldTable.writeDataFile(oldRows);
        Rows newRows = new Rows(schema.rowSchema(), schema.keySide().newDecoder(), schema.valueSide().newDecoder(),
                records);
        DataFile newFile = newTable.writeRows(newRows);
        oldTable.commit(List.of(oldFile), Map.of());
        newTable.commit(List.of(newFile), Map.of());

        assertThat(newRows.decodeFailures()).isEqualTo(oldRows.decodeFailures()).isGreaterThan(20);
        assertThat(newRows.decodeFailuresByPartition()).isEqualTo(oldRows.decodeFailuresByPartition());
        assertThat(newFile.numRecords()).isEqualTo(oldFile.numRecords()).isEqualTo(600);

        List<Map<String, Object>> oldRead = read(oldLocation);
        List<Map<String, Object>> newRead = read(newLocation);
        assertThat(newRead).hasSize(600);
        assertThat(newRead).isEqualTo(oldRead);
        if (rescue) {
            assertThat(newRead).anySatisfy(r -> assertThat(r.get(StreamSchema.RESCUED_DATA)).isNotNull());
        }

        try (ParquetFileReader o = ParquetFileReader.open(new LocalInputFile(
                warehouse.resolve("c/s/" + format + "_old").resolve(oldFile.path())));
                ParquetFileReader n = ParquetFileReader.open(new LocalInputFile(
                        warehouse.resolve("c/s/" + format + "_new").resolve(newFile.path())))) {
            FileMetaData om = o.getFileMetaData();
            FileMetaData nm = n.getFileMetaData();
            assertThat(nm.getSchema()).isEqualTo(om.getSchema());
            assertThat(nm.getKeyValueMetaData().get("parquet.avro.schema"))
                    .isEqualTo(om.getKeyValueMetaData().get("parquet.avro.schema"));
        }
        JsonNode oldStats = committedStats(oldLocation);
        JsonNode newStats = committedStats(newLocation);
        assertThat(newStats).isEqualTo(oldStats);
        // Not vacuous: nested bounds, null counts of nested leaves and of arrays are there.
        assertThat(newStats.at("/minValues/value").size()).isGreaterThan(2);
        assertThat(newStats.at("/nullCount/value").size()).isGreaterThan(5);
        assertThat(newStats.at("/nullCount/key").asLong()).isGreaterThan(0);
    }

    // --- payloads: one record shape per format, with NULLs, nesting and edge values spread over the records ---

    static byte[] json(int i) {
        Random r = new Random(i);
        StringBuilder s = new StringBuilder("{\"id\":").append(i % 5 == 0 ? -i : i);
        if (i % 7 != 0) {
            s.append(",\"name\":\"").append(name(i)).append('"');
        }
        s.append(",\"amount\":").append(i % 97 == 4 ? "1e308" : String.valueOf(r.nextInt(100000) / 100.0));
        s.append(",\"ok\":").append(i % 2 == 0);
        if (i % 9 != 0) {
            s.append(",\"at\":\"2026-0").append(1 + i % 9).append("-1").append(i % 10).append("T12:34:56.")
                    .append(100 + i % 900).append("Z\"");
        }
        s.append(",\"day\":").append(i % 6 == 0 ? "null" : "\"2024-02-" + (10 + i % 19) + "\"");
        if (i % 4 != 0) {
            s.append(",\"tags\":[").append(i % 8 == 1 ? "" : "\"t" + i + "\",null,\"é" + i % 3 + "\"").append(']');
        }
        if (i % 5 != 1) {
            s.append(",\"address\":{\"city\":\"city-").append(i % 10).append('"');
            if (i % 3 != 0) {
                s.append(",\"geo\":{\"lat\":").append(40 + i % 10).append(",\"lon\":").append(-i % 7).append('}');
            }
            s.append('}');
        }
        if (i % 3 == 1) {
            s.append(",\"lines\":[{\"sku\":\"s").append(i).append("\",\"qty\":").append(i % 4).append("},{}]");
        }
        if (i % 10 == 2) {
            s.append(",\"extra\":{\"free\":[1,2,{\"x\":null}]}");
        }
        return s.append('}').toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Long (more than 32 characters, so truncated in the statistics), some with characters beyond ASCII. */
    static String name(int i) {
        return (i % 3 == 0 ? "Zoë " : "name ") + "x".repeat(30) + i + (i % 11 == 0 ? "\uD834\uDD1E" : "");
    }

    private static final Schema AVRO = new Schema.Parser().parse(AVRO_SCHEMA);

    static byte[] avro(int i) {
        Random r = new Random(i);
        GenericData.Record v = new GenericData.Record(AVRO);
        v.put("id", (long) (i % 5 == 0 ? -i : i));
        v.put("name", i % 7 == 0 ? null : name(i));
        BigDecimal amount = BigDecimal.valueOf(r.nextInt(2_000_000) - 1_000_000, 2);
        v.put("amount", ByteBuffer.wrap(amount.unscaledValue().toByteArray()));
        v.put("ratio", i % 50 == 3 ? Float.NaN : r.nextFloat());
        v.put("score", i % 4 == 0 ? null : r.nextDouble() * 100);
        v.put("ok", i % 2 == 0);
        v.put("raw", i % 3 == 0 ? null : ByteBuffer.wrap(new byte[] {(byte) i, 0, -1}));
        v.put("at", 1_760_000_000_123L + i * 3_600_000L);
        v.put("day", i % 6 == 0 ? null : 19_000 + i % 400);
        v.put("kind", new GenericData.EnumSymbol(AVRO.getField("kind").schema(), List.of("A", "B", "C").get(i % 3)));
        v.put("tags", i % 4 == 0 ? List.of() : Arrays.asList("t" + i, null, "é" + i % 3));
        v.put("counts", i % 5 == 0 ? null : i % 5 == 1 ? Map.of() : Map.of("a", (long) i, "b", -1L));
        if (i % 5 != 1) {
            Schema address = AVRO.getField("address").schema().getTypes().get(1);
            GenericData.Record a = new GenericData.Record(address);
            a.put("city", "city-" + i % 10);
            a.put("zip", i % 3 == 0 ? null : 10_000 + i);
            a.put("history", i % 2 == 0 ? null : List.of(i, i + 1));
            v.put("address", a);
        }
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new GenericDatumWriter<GenericRecord>(AVRO).write(v, encoder);
            encoder.flush();
            return out.toByteArray();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    interface Fields {
        void write(CodedOutputStream out) throws Exception;
    }

    static byte[] message(Fields fields) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            fields.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] proto(int i) {
        Random r = new Random(i);
        return message(o -> {
            o.writeInt64(1, i % 5 == 0 ? -i : i);
            if (i % 7 != 0) {
                o.writeString(2, name(i));
            }
            o.writeDouble(3, i % 50 == 3 ? Double.NaN : r.nextInt(100000) / 100.0);
            o.writeFloat(4, r.nextFloat());
            o.writeBool(5, i % 2 == 0);
            if (i % 3 != 0) {
                o.writeBytes(6, ByteString.copyFrom(new byte[] {(byte) i, 0, -1}));
            }
            if (i % 5 != 1) {
                o.writeBytes(7, ByteString.copyFrom(message(a -> {
                    a.writeString(1, "city-" + i % 10);
                    a.writeInt32(2, 10_000 + i);
                })));
            }
            if (i % 4 != 0) {
                o.writeString(8, "t" + i);
                o.writeString(8, "é" + i % 3);
            }
            if (i % 5 != 0) {
                o.writeBytes(9, ByteString.copyFrom(message(e -> {
                    e.writeString(1, "a");
                    e.writeInt64(2, i);
                })));
            }
            o.writeEnum(10, i % 2);
            if (i % 3 == 2) {
                o.writeBytes(11, ByteString.copyFrom(message(a -> a.writeString(1, "old-" + i))));
            }
            // A oneof written twice: the last member wins, the other is NULL.
            if (i % 4 == 1) {
                o.writeString(12, "card-" + i);
            }
            if (i % 6 == 1) {
                o.writeBytes(13, ByteString.copyFrom(message(a -> a.writeString(1, "bill-" + i))));
            }
            if (i % 8 != 3) {
                o.writeBytes(14, ByteString.copyFrom(message(t -> {
                    t.writeInt64(1, 1_760_000_000L + i * 61L);
                    t.writeInt32(2, i % 3 == 0 ? 0 : 123_456_789);
                })));
            }
            if (i % 5 == 2) {
                o.writeBytes(15, ByteString.copyFrom(message(w -> w.writeInt64(1, i % 10 == 2 ? 0 : -i))));
            }
        });
    }

    // --- the independent reader: Delta Kernel's stock engine, and the log's JSON as written ---

    static List<Map<String, Object>> read(String location) throws Exception {
        Snapshot snapshot = TableManager.loadSnapshot(location).build(ENGINE);
        Scan scan = snapshot.getScanBuilder().build();
        Row scanState = scan.getScanState(ENGINE);
        StructType physical = ScanStateRow.getPhysicalDataReadSchema(scanState);
        List<Map<String, Object>> out = new ArrayList<>();
        try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(ENGINE)) {
            while (files.hasNext()) {
                try (CloseableIterator<Row> fileRows = files.next().getRows()) {
                    while (fileRows.hasNext()) {
                        Row scanFile = fileRows.next();
                        CloseableIterator<ColumnarBatch> data = ENGINE.getParquetHandler().readParquetFiles(
                                Utils.singletonCloseableIterator(InternalScanFileUtils.getAddFileStatus(scanFile)),
                                physical, Optional.empty()).map(r -> r.getData());
                        try (CloseableIterator<FilteredColumnarBatch> logical =
                                Scan.transformPhysicalData(ENGINE, scanState, scanFile, data)) {
                            while (logical.hasNext()) {
                                ColumnarBatch b = logical.next().getData();
                                for (int row = 0; row < b.getSize(); row++) {
                                    Map<String, Object> m = new LinkedHashMap<>();
                                    for (int c = 0; c < b.getSchema().length(); c++) {
                                        m.put(b.getSchema().at(c).getName(), value(b.getColumnVector(c), row,
                                                b.getSchema().at(c).getDataType()));
                                    }
                                    out.add(m);
                                }
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    private static Object value(ColumnVector v, int row, DataType type) {
        if (v.isNullAt(row)) {
            return null;
        }
        if (type instanceof StringType) {
            return v.getString(row);
        } else if (type instanceof BooleanType) {
            return v.getBoolean(row);
        } else if (type instanceof IntegerType || type instanceof DateType) {
            return v.getInt(row);
        } else if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType) {
            return v.getLong(row);
        } else if (type instanceof FloatType) {
            return v.getFloat(row);
        } else if (type instanceof DoubleType) {
            return v.getDouble(row);
        } else if (type instanceof DecimalType) {
            return v.getDecimal(row);
        } else if (type instanceof BinaryType) {
            return new BigInteger(1, v.getBinary(row)).toString(16) + "/" + v.getBinary(row).length;
        } else if (type instanceof StructType st) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (int i = 0; i < st.length(); i++) {
                m.put(st.at(i).getName(), value(v.getChild(i), row, st.at(i).getDataType()));
            }
            return m;
        } else if (type instanceof ArrayType at) {
            ArrayValue a = v.getArray(row);
            List<Object> l = new ArrayList<>();
            for (int i = 0; i < a.getSize(); i++) {
                l.add(value(a.getElements(), i, at.getElementType()));
            }
            return l;
        } else if (type instanceof MapType mt) {
            MapValue a = v.getMap(row);
            Map<Object, Object> m = new TreeMap<>();
            for (int i = 0; i < a.getSize(); i++) {
                m.put(value(a.getKeys(), i, mt.getKeyType()), value(a.getValues(), i, mt.getValueType()));
            }
            return m;
        }
        throw new UnsupportedOperationException("the test reader does not read " + type);
    }

    /** The statistics of the one file the table's log adds, as committed. */
    static JsonNode committedStats(String location) throws Exception {
        Path log = Path.of(java.net.URI.create(location.startsWith("file:") ? location : "file://" + location))
                .resolve("_delta_log");
        List<JsonNode> stats = new ArrayList<>();
        try (Stream<Path> files = Files.list(log)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                for (String line : Files.readAllLines(f)) {
                    JsonNode action = JSON.readTree(line);
                    if (action.has("add")) {
                        stats.add(JSON.readTree(action.get("add").get("stats").asText()));
                    }
                }
            }
        }
        assertThat(stats).hasSize(1);
        return stats.get(0);
    }
}
