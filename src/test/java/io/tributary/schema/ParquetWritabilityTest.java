package io.tributary.schema;

import static io.tributary.schema.TestSchemas.avro;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.avro.AvroWriteSupport;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The column model is only right if parquet-avro can write what the decoders produce: rows of every format go through
 * a real Parquet file and back.
 */
class ParquetWritabilityTest {
    @TempDir
    Path dir;

    private static GenericData model() {
        GenericData model = new GenericData();
        model.addLogicalTypeConversion(new Conversions.DecimalConversion());
        return model;
    }

    private List<GenericRecord> roundTrip(StreamSchema stream, List<GenericRecord> rows) throws Exception {
        Path file = dir.resolve("rows-" + System.nanoTime() + ".parquet");
        try (ParquetWriter<GenericRecord> writer = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
                .withSchema(stream.rowSchema()).withDataModel(model())
                // Nullable array elements need the standard three-level list layout (also what Delta expects).
                .config(AvroWriteSupport.WRITE_OLD_LIST_STRUCTURE, "false")
                .build()) {
            for (GenericRecord row : rows) {
                writer.write(row);
            }
        }
        List<GenericRecord> read = new ArrayList<>();
        try (ParquetReader<GenericRecord> reader = AvroParquetReader.<GenericRecord>builder(new LocalInputFile(file))
                .withDataModel(model()).build()) {
            for (GenericRecord r = reader.read(); r != null; r = reader.read()) {
                read.add(r);
            }
        }
        return read;
    }

    private static GenericRecord row(StreamSchema stream, Object key, Object value, long offset) {
        GenericData.Record row = new GenericData.Record(stream.rowSchema());
        row.put(StreamSchema.KEY, key);
        row.put(StreamSchema.VALUE, value);
        row.put(StreamSchema.STREAM_RECORD_TIMESTAMP, 1_700_000_000_000_000L);
        row.put(StreamSchema.RECORD_SOURCE, "stream");
        row.put(StreamSchema.KAFKA_TOPIC, "tx");
        row.put(StreamSchema.KAFKA_PARTITION, 3);
        row.put(StreamSchema.KAFKA_OFFSET, offset);
        return row;
    }

    @Test
    void avroAndPlainRowsWriteAndReadBack() throws Exception {
        String text = AvroDecoderTestSchema.TEXT;
        StreamSchema stream = StreamSchema.of(
                SideSchema.compile(new SchemaSource.Plain(), "schema_config.direct_schemas.key_schema"),
                SideSchema.compile(new SchemaSource.Avro(text), "schema_config.direct_schemas.payload_schema"));
        Schema writer = avro(text);
        byte[] bytes = AvroDecoderTestSchema.sampleBytes(writer);
        Object value = stream.valueSide().newDecoder().decode(bytes);
        List<GenericRecord> read = roundTrip(stream, List.of(row(stream, "k", value, 1), row(stream, null, null, 2)));

        assertThat(read).hasSize(2);
        GenericRecord v = (GenericRecord) read.get(0).get("value");
        assertThat(v.get("amount")).isEqualTo(new BigDecimal("-1234.56"));
        assertThat(v.get("color").toString()).isEqualTo("GREEN");
        assertThat(((GenericRecord) ((GenericRecord) v.get("event")).get("Deleted")).get("id").toString())
                .isEqualTo("e1");
        assertThat(read.get(1).get("value")).isNull();
        assertThat(read.get(1).get("kafka_offset")).isEqualTo(2L);

        MessageType parquet;
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(Files.list(dir).findFirst()
                .orElseThrow()))) {
            parquet = reader.getFooter().getFileMetaData().getSchema();
        }
        assertThat(parquet.getType("stream_record_timestamp").toString())
                .contains("int64", "TIMESTAMP(MICROS,true)");
        assertThat(parquet.getType("value").asGroupType().getType("localMillis").toString())
                .contains("TIMESTAMP(MICROS,false)");
        assertThat(parquet.getType("value").asGroupType().getType("amount").toString()).contains("DECIMAL(12,2)");
        assertThat(parquet.getType("value").asGroupType().getType("day").toString()).contains("DATE");
    }

    @Test
    void protobufAndJsonRowsWriteAndReadBack() throws Exception {
        StreamSchema stream = StreamSchema.of(
                SideSchema.compile(new SchemaSource.JsonSchema("{\"type\": \"object\", \"properties\": {"
                        + "\"id\": {\"type\": \"string\"}, \"at\": {\"type\": \"string\", \"format\": \"date-time\"},"
                        + "\"tags\": {\"type\": \"array\", \"items\": {\"type\": [\"string\", \"null\"]}}}}"),
                        "schema_config.direct_schemas.key_schema"),
                SideSchema.compile(new SchemaSource.Protobuf(ProtoMappingTest.EVENT, "com.example.Event"),
                        "schema_config.direct_schemas.payload_schema"));
        Object key = stream.keySide().newDecoder().decode(TestSchemas.utf8(
                "{\"id\": \"k1\", \"at\": \"2024-01-01T00:00:00Z\", \"tags\": [\"a\", null]}"));
        byte[] bytes = ProtoDecoderTest.message(o -> {
            o.writeUInt64(8, -1L);
            o.writeString(16, "t");
            o.writeBytes(25, com.google.protobuf.ByteString.copyFrom(ProtoDecoderTest.message(e -> {
                e.writeString(1, "c1");
                e.writeBytes(2, com.google.protobuf.ByteString.copyFrom(
                        ProtoDecoderTest.message(c -> c.writeString(1, "Cy"))));
            })));
        });
        Object value = stream.valueSide().newDecoder().decode(bytes);
        List<GenericRecord> read = roundTrip(stream, List.of(row(stream, key, value, 9)));
        GenericRecord v = (GenericRecord) read.get(0).get("value");
        assertThat(v.get("u64")).isEqualTo(new BigDecimal("18446744073709551615"));
        assertThat(v.get("i32")).isNull();
        assertThat(v.get("by_id").toString()).contains("c1", "Cy");
        assertThat(((GenericRecord) read.get(0).get("key")).get("tags").toString()).isEqualTo("[a, null]");
    }
}
