package io.tributary.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Avro datums written with the reader schema decode the same without the resolving decoder as with it: random datums
 * of schemas with every type, nested records, arrays and maps of nullables, two- and many-branch unions, one-branch
 * unions, logical types; and the same bytes corrupted (truncated, a flipped bit, a byte replaced, bytes appended),
 * which must fail with the same message or decode to the same value.
 */
class AvroBinaryPathTest {
    static final String WIDE = AvroDecoderTest.SCHEMA;

    static final String ODD = """
        {"type": "record", "name": "Odd", "fields": [
          {"name": "only", "type": ["string"]},
          {"name": "nothing", "type": ["null"]},
          {"name": "choice", "type": ["int", "string", "null", {"type": "array", "items": ["null", "long"]}]},
          {"name": "nested", "type": ["null", {"type": "record", "name": "In", "fields": [
              {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["X", "Y", "Z"]}},
              {"name": "m", "type": {"type": "map", "values": {"type": "array", "items": "In2"}}}]}], "default": null},
          {"name": "big", "type": {"type": "fixed", "name": "F16", "size": 16, "logicalType": "decimal",
              "precision": 38, "scale": 3}},
          {"name": "micros", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}]}
        ]}""".replace("\"In2\"", """
        {"type": "record", "name": "In2", "fields": [{"name": "v", "type": ["null", "double"]},
          {"name": "ok", "type": "boolean"}]}""");

    @ParameterizedTest
    @ValueSource(strings = {"wide", "odd"})
    void withoutTheResolvingDecoderAsWithIt(String which) throws Exception {
        String text = which.equals("wide") ? WIDE : ODD;
        AvroSchemaCompiler.Compiled compiled = AvroSchemaCompiler.compile(text, "f", new RecordNames("r"));
        Decoder direct = compiled.newDecoder();
        Decoder resolving;
        System.setProperty("tributary.ingest.direct-write", "false");
        try {
            resolving = compiled.newDecoder();
        } finally {
            System.clearProperty("tributary.ingest.direct-write");
        }
        compare(direct, resolving, compiled.writerSchema(), bytes -> bytes);
    }

    /**
     * The same for a registry stream: Confluent-framed datums whose writer schema is the column's own are read
     * without the resolving decoder too (they took it always before), with the same values and failures.
     */
    @ParameterizedTest
    @ValueSource(strings = {"wide", "odd"})
    void registryDatumsWrittenWithTheColumnsSchemaSkipTheResolvingDecoder(String which) throws Exception {
        String text = which.equals("wide") ? WIDE : ODD;
        try (StubRegistry registry = new StubRegistry()) {
            RegistryAccess access = new RegistryAccess(registry.url(), "key", "s-" + java.util.UUID.randomUUID());
            int id = registry.register("t-value", "AVRO", text);
            SideSchema side = SideSchema.compile(new SchemaSource.Registry("t-value", RegistryFormat.FORMAT_AVRO,
                    access), "f");
            Schema reader = AvroSchemaCompiler.parse(text, "f");
            AvroValueReader root = new AvroTypeMapper("f", new RecordNames("r")).map(reader).reader();
            RegistryAvroDecoder direct = new RegistryAvroDecoder(RegistryClient.shared(access), reader, root);
            RegistryAvroDecoder resolving;
            System.setProperty("tributary.ingest.direct-write", "false");
            try {
                resolving = new RegistryAvroDecoder(RegistryClient.shared(access), reader, root);
            } finally {
                System.clearProperty("tributary.ingest.direct-write");
            }
            assertThat(direct.decoderFor(id).direct()).as("the column's own schema is read directly").isTrue();
            assertThat(resolving.decoderFor(id).direct()).isFalse();
            byte[] header = {0, (byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) id};
            compare(direct, resolving, reader, bytes -> frame(header, bytes));
            // And the side as a stream uses it decodes the same.
            Object viaSide = ProtoWireReaderTest.canon(side.newDecoder().decode(frame(header,
                    encode(reader, datum(reader, new Random(5), 0)))));
            assertThat(viaSide).isEqualTo(ProtoWireReaderTest.canon(resolving.decode(frame(header,
                    encode(reader, datum(reader, new Random(5), 0))))));
        }
    }

    private static byte[] frame(byte[] header, byte[] bytes) {
        byte[] framed = new byte[header.length + bytes.length];
        System.arraycopy(header, 0, framed, 0, header.length);
        System.arraycopy(bytes, 0, framed, header.length, bytes.length);
        return framed;
    }

    private static void compare(Decoder direct, Decoder resolving, Schema schema,
            java.util.function.UnaryOperator<byte[]> frame) throws Exception {
        Random random = new Random(3);
        int decoded = 0;
        int failed = 0;
        for (int i = 0; i < 5000; i++) {
            byte[] bytes = encode(schema, datum(schema, random, 0));
            if (random.nextInt(3) == 0) {
                bytes = corrupt(bytes, random);
            }
            bytes = frame.apply(bytes);
            String expectedError = null;
            Object expected = null;
            try {
                expected = ProtoWireReaderTest.canon(resolving.decode(bytes));
            } catch (DecodeException e) {
                expectedError = e.getMessage();
            }
            String actualError = null;
            Object actual = null;
            try {
                actual = ProtoWireReaderTest.canon(direct.decode(bytes));
            } catch (DecodeException e) {
                actualError = e.getMessage();
            }
            String hex = HexFormat.of().formatHex(bytes);
            assertThat(actualError).as("error for %s", hex).isEqualTo(expectedError);
            assertThat(actual).as("value of %s", hex).isEqualTo(expected);
            if (expectedError == null) {
                decoded++;
            } else {
                failed++;
            }
        }
        assertThat(decoded).as("decoded of 5000 (%d failed)", failed).isGreaterThan(3000);
        assertThat(failed).isGreaterThan(300);
    }

    private static Object datum(Schema s, Random r, int depth) {
        LogicalTypes.Decimal decimal = s.getLogicalType() instanceof LogicalTypes.Decimal d ? d : null;
        switch (s.getType()) {
            case NULL:
                return null;
            case BOOLEAN:
                return r.nextBoolean();
            case INT:
                return r.nextInt(5) == 0 ? 0 : r.nextInt();
            case LONG:
                return r.nextInt(5) == 0 ? 0L : r.nextLong() >> (12 + r.nextInt(50));
            case FLOAT:
                return List.of(0f, -0f, Float.NaN, 1.5f, r.nextFloat()).get(r.nextInt(5));
            case DOUBLE:
                return List.of(0d, -0d, Double.NaN, 2.25, r.nextDouble()).get(r.nextInt(5));
            case STRING:
                return List.of("", "a", "héllo", "𝄞x").get(r.nextInt(4));
            case BYTES:
                if (decimal != null) {
                    return new BigDecimal(BigInteger.valueOf(r.nextLong() % 1_000_000_000_000L >> r.nextInt(40)),
                            decimal.getScale());
                }
                return ByteBuffer.wrap(new byte[r.nextInt(4)]);
            case FIXED:
                if (decimal != null) {
                    BigInteger unscaled = BigInteger.valueOf(r.nextLong() >> r.nextInt(64));
                    if (decimal.getPrecision() > 30) {
                        unscaled = unscaled.multiply(BigInteger.valueOf(r.nextInt()));
                    } else if (decimal.getPrecision() < 19) {
                        unscaled = unscaled.mod(BigInteger.TEN.pow(decimal.getPrecision()));
                    }
                    return new BigDecimal(unscaled, decimal.getScale());
                }
                byte[] fixed = new byte[s.getFixedSize()];
                r.nextBytes(fixed);
                return new GenericData.Fixed(s, fixed);
            case ENUM:
                return new GenericData.EnumSymbol(s, s.getEnumSymbols().get(r.nextInt(s.getEnumSymbols().size())));
            case ARRAY: {
                List<Object> list = new ArrayList<>();
                int n = depth > 3 ? 0 : r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    list.add(datum(s.getElementType(), r, depth + 1));
                }
                return list;
            }
            case MAP: {
                Map<String, Object> map = new HashMap<>();
                int n = depth > 3 ? 0 : r.nextInt(3);
                for (int i = 0; i < n; i++) {
                    map.put("k" + r.nextInt(5), datum(s.getValueType(), r, depth + 1));
                }
                return map;
            }
            case UNION: {
                List<Schema> types = s.getTypes();
                return datum(types.get(depth > 3 && types.get(0).getType() == Schema.Type.NULL ? 0
                        : r.nextInt(types.size())), r, depth + 1);
            }
            case RECORD: {
                GenericData.Record rec = new GenericData.Record(s);
                for (Schema.Field f : s.getFields()) {
                    rec.put(f.pos(), datum(f.schema(), r, depth + 1));
                }
                return rec;
            }
            default:
                throw new IllegalArgumentException(s.getType().name());
        }
    }

    private static byte[] encode(Schema schema, Object datum) throws Exception {
        GenericData model = new GenericData();
        model.addLogicalTypeConversion(new Conversions.DecimalConversion());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<>(schema, model).write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static byte[] corrupt(byte[] bytes, Random r) {
        if (bytes.length == 0) {
            return new byte[] {(byte) 0x7f};
        }
        byte[] copy = bytes.clone();
        switch (r.nextInt(4)) {
            case 0 -> {
                return java.util.Arrays.copyOf(bytes, r.nextInt(bytes.length));
            }
            case 1 -> copy[r.nextInt(copy.length)] ^= (byte) (1 << r.nextInt(8));
            case 2 -> copy[r.nextInt(copy.length)] = (byte) r.nextInt();
            default -> {
                return java.util.Arrays.copyOf(bytes, bytes.length + 1 + r.nextInt(3));
            }
        }
        return copy;
    }
}
