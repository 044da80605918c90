package io.tributary.schema;

import static io.tributary.schema.TestSchemas.avro;
import static io.tributary.schema.TestSchemas.avroSide;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;

class AvroDecoderTest {
    static final String SCHEMA = """
        {"type": "record", "name": "Tx", "namespace": "com.example", "fields": [
          {"name": "i", "type": "int"},
          {"name": "l", "type": "long"},
          {"name": "f", "type": "float"},
          {"name": "d", "type": "double"},
          {"name": "b", "type": "boolean"},
          {"name": "s", "type": "string"},
          {"name": "raw", "type": "bytes"},
          {"name": "fx", "type": {"type": "fixed", "name": "Hash", "size": 4}},
          {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}},
          {"name": "opt", "type": ["null", "string"], "default": null},
          {"name": "day", "type": {"type": "int", "logicalType": "date"}},
          {"name": "tsMillis", "type": {"type": "long", "logicalType": "timestamp-millis"}},
          {"name": "tsNanos", "type": {"type": "long", "logicalType": "timestamp-nanos"}},
          {"name": "localMillis", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
          {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
          {"name": "fixedAmount", "type": {"type": "fixed", "name": "Dec", "size": 8, "logicalType": "decimal",
              "precision": 18, "scale": 4}},
          {"name": "tags", "type": {"type": "array", "items": "string"}},
          {"name": "attrs", "type": {"type": "map", "values": ["null", "int"]}},
          {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
              {"name": "name", "type": "string"}]}},
          {"name": "event", "type": ["null",
              {"type": "record", "name": "Created", "fields": [{"name": "id", "type": "string"}]},
              {"type": "record", "name": "Deleted", "fields": [{"name": "id", "type": "string"}]}]}
        ]}""";

    static byte[] encode(Schema schema, Object datum) throws Exception {
        GenericData model = new GenericData();
        model.addLogicalTypeConversion(new Conversions.DecimalConversion());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<>(schema, model).write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    static GenericRecord sample(Schema writer, Schema eventBranch) {
        Schema s = writer;
        return new GenericRecordBuilder(s)
                .set("i", -7).set("l", 1L << 40).set("f", 1.5f).set("d", 2.25d).set("b", true)
                .set("s", new Utf8("héllo")).set("raw", ByteBuffer.wrap(new byte[] {1, 2, 3}))
                .set("fx", new GenericData.Fixed(s.getField("fx").schema(), new byte[] {9, 8, 7, 6}))
                .set("color", new GenericData.EnumSymbol(s.getField("color").schema(), "GREEN"))
                .set("opt", null).set("day", 19_000).set("tsMillis", 1_700_000_000_123L)
                .set("tsNanos", 1_700_000_000_123_456_789L).set("localMillis", 5L)
                .set("amount", new BigDecimal("-1234.56")).set("fixedAmount", new BigDecimal("12.3456"))
                .set("tags", List.of("a", "b")).set("attrs", Map.of("x", 1))
                .set("customer", new GenericRecordBuilder(s.getField("customer").schema()).set("name", "Ann").build())
                .set("event", new GenericRecordBuilder(eventBranch).set("id", "e1").build())
                .build();
    }

    @Test
    void roundTripsEveryTypeIntoTheColumnModel() throws Exception {
        Schema writer = avro(SCHEMA);
        Schema deleted = writer.getField("event").schema().getTypes().get(2);
        SideSchema side = avroSide(SCHEMA);
        GenericRecord r = (GenericRecord) side.newDecoder().decode(encode(writer, sample(writer, deleted)));

        assertThat(r.getSchema()).isEqualTo(side.columnSchema().getTypes().get(1));
        assertThat(r.get("i")).isEqualTo(-7);
        assertThat(r.get("l")).isEqualTo(1L << 40);
        assertThat(r.get("f")).isEqualTo(1.5f);
        assertThat(r.get("d")).isEqualTo(2.25d);
        assertThat(r.get("b")).isEqualTo(true);
        assertThat(r.get("s")).isEqualTo("héllo");
        assertThat(r.get("raw")).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        assertThat(r.get("fx")).isEqualTo(ByteBuffer.wrap(new byte[] {9, 8, 7, 6}));
        assertThat(r.get("color")).isEqualTo("GREEN");
        assertThat(r.get("opt")).isNull();
        assertThat(r.get("day")).isEqualTo(19_000);
        assertThat(r.get("tsMillis")).isEqualTo(1_700_000_000_123_000L);
        assertThat(r.get("tsNanos")).isEqualTo(1_700_000_000_123_456L);
        assertThat(r.get("localMillis")).isEqualTo(5_000L);
        assertThat(r.get("amount")).isEqualTo(new BigDecimal("-1234.56"));
        assertThat(r.get("fixedAmount")).isEqualTo(new BigDecimal("12.3456"));
        assertThat(r.get("tags")).isEqualTo(List.of("a", "b"));
        assertThat(r.get("attrs")).isEqualTo(Map.of("x", 1));
        assertThat(((GenericRecord) r.get("customer")).get("name")).isEqualTo("Ann");
        GenericRecord event = (GenericRecord) r.get("event");
        assertThat(event.get("Created")).isNull();
        assertThat(((GenericRecord) event.get("Deleted")).get("id")).isEqualTo("e1");
        assertThat(((GenericRecord) event.get("Deleted")).getSchema())
                .isSameAs(event.getSchema().getField("Deleted").schema().getTypes().get(1));
    }

    @Test
    void decoderIsReusableAcrossMessages() throws Exception {
        Schema writer = avro(SCHEMA);
        Decoder decoder = avroSide(SCHEMA).newDecoder();
        Schema created = writer.getField("event").schema().getTypes().get(1);
        GenericRecord withCreated = sample(writer, created);
        GenericRecord withNull = sample(writer, created);
        withNull.put("event", null);
        withNull.put("opt", "set");
        GenericRecord first = (GenericRecord) decoder.decode(encode(writer, withCreated));
        assertThatThrownBy(() -> decoder.decode(new byte[] {1, 2})).isInstanceOf(DecodeException.class);
        GenericRecord second = (GenericRecord) decoder.decode(encode(writer, withNull));
        assertThat(((GenericRecord) first.get("event")).get("Created")).isNotNull();
        assertThat(second.get("event")).isNull();
        assertThat(second.get("opt")).isEqualTo("set");
    }

    @Test
    void topLevelUnionOfRecords() throws Exception {
        String text = """
            [{"type": "record", "name": "A", "fields": [{"name": "x", "type": "int"}]},
             {"type": "record", "name": "B", "fields": [{"name": "y", "type": "string"}]}]""";
        Schema union = avro(text);
        Object decoded = avroSide(text).newDecoder().decode(
                encode(union, new GenericRecordBuilder(union.getTypes().get(1)).set("y", "why").build()));
        assertThat(decoded.toString()).isEqualTo("{\"A\": null, \"B\": {\"y\": \"why\"}}");
    }

    @Test
    void truncatedOrTrailingBytesFail() throws Exception {
        Schema writer = avro(SCHEMA);
        byte[] good = encode(writer, sample(writer, writer.getField("event").schema().getTypes().get(1)));
        Decoder decoder = avroSide(SCHEMA).newDecoder();
        assertThatThrownBy(() -> decoder.decode(Arrays.copyOf(good, good.length - 3)))
                .isInstanceOf(DecodeException.class);
        assertThatThrownBy(() -> decoder.decode(Arrays.copyOf(good, good.length + 1)))
                .isInstanceOf(DecodeException.class);
        assertThat(decoder.decode(good)).isNotNull();
    }

    @Test
    void badEnumOrUnionIndexFails() {
        Decoder enumDecoder = avroSide("{\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"A\"]}").newDecoder();
        assertThatThrownBy(() -> enumDecoder.decode(new byte[] {4})).isInstanceOf(DecodeException.class);
        Decoder unionDecoder = avroSide("[\"null\", \"int\"]").newDecoder();
        assertThatThrownBy(() -> unionDecoder.decode(new byte[] {8, 2})).isInstanceOf(DecodeException.class);
    }

    /** The resolving decoder's grammar expects a one-branch union's index: without it every such datum failed. */
    @Test
    void oneBranchUnionsDecodeWithAndWithoutTheResolvingDecoder() throws Exception {
        Schema schema = avro("""
            {"type": "record", "name": "R", "fields": [
              {"name": "s", "type": ["string"]}, {"name": "n", "type": ["null"]}, {"name": "i", "type": "int"}]}""");
        byte[] bytes = encode(schema, new GenericRecordBuilder(schema).set("s", "x").set("n", null).set("i", 7)
                .build());
        SideSchema side = avroSide(schema.toString());
        Decoder direct = side.newDecoder();
        Decoder resolving;
        System.setProperty("tributary.ingest.direct-write", "false");
        try {
            resolving = side.newDecoder();
        } finally {
            System.clearProperty("tributary.ingest.direct-write");
        }
        for (Decoder d : List.of(direct, resolving)) {
            GenericRecord r = (GenericRecord) d.decode(bytes);
            assertThat(r.get("s")).isEqualTo("x");
            assertThat(r.get("n")).isNull();
            assertThat(r.get("i")).isEqualTo(7);
        }
    }

    @Test
    void nullBytesAreNull() throws Exception {
        assertThat(avroSide("\"string\"").newDecoder().decode(null)).isNull();
    }

    @Test
    void lengthsAndCountsBeyondTheMessageFailWithoutAllocating() {
        // A 1 GiB length or item count in five bytes.
        byte[] huge = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08};
        for (String schema : List.of("\"bytes\"", "\"string\"", "{\"type\": \"array\", \"items\": \"null\"}",
                "{\"type\": \"map\", \"values\": \"int\"}", "{\"type\": \"array\", \"items\": \"int\"}")) {
            Decoder decoder = avroSide(schema).newDecoder();
            long before = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
            assertThatThrownBy(() -> decoder.decode(huge)).as(schema).isInstanceOf(DecodeException.class);
            long after = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
            assertThat(after - before).as(schema).isLessThan(100_000_000L);
        }
    }

    @Test
    void blocksWithByteSizesAreReadAndSkipped() throws Exception {
        // count -2 (zig-zag 3) with a byte size of 2 (zig-zag 4), items 1 and 2, then the end block.
        byte[] sizedBlock = {0x03, 0x04, 0x02, 0x04, 0x00};
        assertThat(avroSide("{\"type\": \"array\", \"items\": \"int\"}").newDecoder().decode(sizedBlock))
                .isEqualTo(List.of(1, 2));

        Schema writer = avro("{\"type\": \"record\", \"name\": \"R\", \"fields\": ["
                + "{\"name\": \"skipped\", \"type\": {\"type\": \"array\", \"items\": \"int\"}},"
                + "{\"name\": \"m\", \"type\": {\"type\": \"map\", \"values\": \"string\"}},"
                + "{\"name\": \"kept\", \"type\": \"string\"}]}");
        Schema reader = avro("{\"type\": \"record\", \"name\": \"R\", \"fields\": ["
                + "{\"name\": \"kept\", \"type\": \"string\"}]}");
        AvroTypeMapper.Mapped mapped = new AvroTypeMapper("f", new RecordNames("r")).map(reader);
        AvroDecoder decoder = new AvroDecoder(writer, reader, mapped.reader());
        // skipped: sized block of [1, 2] then a plain block of [3]; m: {"k": "v"}; kept: "yes"
        byte[] bytes = {0x03, 0x04, 0x02, 0x04, 0x02, 0x06, 0x00, 0x02, 0x02, 'k', 0x02, 'v', 0x00, 0x06, 'y', 'e', 's'};
        assertThat(decoder.decode(bytes).toString()).isEqualTo("{\"kept\": \"yes\"}");
    }
}
