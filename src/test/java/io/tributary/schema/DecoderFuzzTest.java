package io.tributary.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.UUID;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 7: random bytes into every decoder. A decoder either returns a value of its column or throws
 * {@link DecodeException} (the pipeline writes NULL and counts it); nothing else may escape, since anything else
 * would fail the batch and wedge the stream on the same record forever. {@code -Dfuzz.decoder-rounds=N} (default
 * 10,000 per decoder; a tenth of it for registry sides, whose unknown schema ids each cost a registry round trip)
 * and {@code -Dfuzz.seed=S} replay a run.
 */
class DecoderFuzzTest {
    static final int ROUNDS = Integer.getInteger("fuzz.decoder-rounds", 10_000);
    static final long SEED = Long.getLong("fuzz.seed", 12L);

    static final String JSON = """
        {"type": "object", "properties": {
          "id": {"type": "string"}, "n": {"type": "integer"}, "x": {"type": ["number", "null"]},
          "ok": {"type": "boolean"}, "at": {"type": "string", "format": "date-time"},
          "day": {"type": "string", "format": "date"},
          "tags": {"type": "array", "items": {"type": "string"}},
          "nested": {"type": "object", "properties": {"deep": {"type": "array", "items": {"type": "object",
            "properties": {"v": {"type": "integer"}}}}}},
          "free": {}}}""";
    static final String AVRO = """
        {"type": "record", "name": "E", "fields": [
          {"name": "id", "type": "string"}, {"name": "n", "type": "long"}, {"name": "i", "type": "int"},
          {"name": "f", "type": "float"}, {"name": "d", "type": ["null", "double"]},
          {"name": "b", "type": "bytes"}, {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}},
          {"name": "e", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C"]}},
          {"name": "tags", "type": {"type": "array", "items": "string"}},
          {"name": "m", "type": {"type": "map", "values": "long"}},
          {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
          {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
          {"name": "either", "type": ["null", {"type": "record", "name": "P", "fields": [{"name": "p", "type": "int"}]},
            {"type": "record", "name": "Q", "fields": [{"name": "q", "type": "string"}]}]}]}""";
    static final String PROTO = """
        syntax = "proto3";
        package fuzz;
        import "google/protobuf/timestamp.proto";
        import "google/protobuf/wrappers.proto";
        message Event {
          string id = 1; int64 n = 2; uint64 big = 3; sint32 s = 4; double d = 5; bool ok = 6; bytes raw = 7;
          Kind kind = 8; repeated string tags = 9; map<string, int64> counts = 10; Inner inner = 11;
          google.protobuf.Timestamp at = 12; google.protobuf.StringValue note = 13; repeated Inner many = 14;
          enum Kind { A = 0; B = 1; }
          message Inner { int32 v = 1; repeated double xs = 2; }
        }
        """;

    final Random random = new Random(SEED);
    StubRegistry registry;
    RegistryAccess access;

    @BeforeEach
    void start() throws Exception {
        registry = new StubRegistry();
        access = new RegistryAccess(registry.url(), "key", "s3cret-" + UUID.randomUUID());
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    @Test
    void jsonDecoderNeverThrowsAnythingButDecodeException() throws Exception {
        fuzz("json", TestSchemas.json(JSON), TestSchemas.utf8("{\"id\": \"a\", \"n\": 1, \"x\": 2.5, \"ok\": true, "
                + "\"at\": \"2026-01-01T00:00:00Z\", \"day\": \"2026-01-01\", \"tags\": [\"t\"], "
                + "\"nested\": {\"deep\": [{\"v\": 3}]}, \"free\": {\"any\": [1]}}"), 0);
    }

    @Test
    void avroDecoderNeverThrowsAnythingButDecodeException() throws Exception {
        fuzz("avro", TestSchemas.avroSide(AVRO), AvroDecoderTest.encode(TestSchemas.avro(AVRO), avroRecord()), 0);
    }

    @Test
    void protobufDecoderNeverThrowsAnythingButDecodeException() throws Exception {
        fuzz("protobuf", TestSchemas.proto(PROTO, "fuzz.Event"), protoBytes(), 0);
    }

    @Test
    void plainDecoderTakesAnyBytes() throws Exception {
        fuzz("plain", SideSchema.compile(new SchemaSource.Plain(), TestSchemas.SIDE), TestSchemas.utf8("text"), 0);
    }

    @Test
    void registryAvroAndProtobufDecodersNeverThrowAnythingButDecodeException() throws Exception {
        int avroId = registry.register("fuzz-avro", "AVRO", AVRO);
        SideSchema avro = SideSchema.compile(new SchemaSource.Registry("fuzz-avro", RegistryFormat.FORMAT_AVRO,
                access), "schema_config.schema_registry_config.payload_schema_locator");
        fuzz("registry avro", avro, ConfluentFramingTest.avroFrame(avroId,
                AvroDecoderTest.encode(TestSchemas.avro(AVRO), avroRecord())), avroId);

        int protoId = registry.register("fuzz-proto", "PROTOBUF", PROTO);
        SideSchema proto = SideSchema.compile(new SchemaSource.Registry("fuzz-proto",
                RegistryFormat.FORMAT_PROTOBUF, access), "schema_config.schema_registry_config.payload_schema_locator");
        byte[] payload = protoBytes();
        byte[] framed = new byte[payload.length + 6];
        ByteBuffer.wrap(framed).put((byte) 0).putInt(protoId).put((byte) 0).put(payload);
        fuzz("registry protobuf", proto, framed, protoId);
    }

    /**
     * Feeds {@code ROUNDS} inputs: random bytes, the valid message with bytes flipped, truncated or extended, and (for
     * registry sides, {@code schemaId} > 0) a valid frame header before random bytes. At least one input decodes.
     */
    private void fuzz(String what, SideSchema side, byte[] valid, int schemaId) {
        int rounds = schemaId > 0 ? ROUNDS / 10 : ROUNDS;
        Decoder decoder = side.newDecoder();
        long started = System.nanoTime();
        int decoded = 0;
        int failed = 0;
        for (int round = 0; round < rounds; round++) {
            byte[] input = round == 0 ? valid : input(valid, schemaId);
            try {
                decoder.decode(input);
                decoded++;
            } catch (DecodeException e) {
                failed++;
                assertThat(e.getMessage()).as("%s: a decode failure says why", what).isNotNull();
            } catch (Throwable t) {
                throw new AssertionError(what + " threw " + t + " for " + hex(input), t);
            }
        }
        System.out.println("DecoderFuzzTest " + what + ": " + decoded + " decoded, " + failed + " DecodeException"
                + " (seed " + SEED + ") in " + (System.nanoTime() - started) / 1_000_000 + " ms");
        assertThat(decoded).as("%s decodes its valid message", what).isGreaterThan(0);
    }

    private byte[] input(byte[] valid, int schemaId) {
        int kind = random.nextInt(6);
        byte[] out;
        switch (kind) {
            case 0 -> {
                out = new byte[random.nextInt(64)];
                random.nextBytes(out);
            }
            case 1 -> {
                out = valid.clone();
                for (int flips = 1 + random.nextInt(4); flips > 0 && out.length > 0; flips--) {
                    out[random.nextInt(out.length)] = (byte) random.nextInt(256);
                }
            }
            case 2 -> out = java.util.Arrays.copyOf(valid, random.nextInt(valid.length + 1));
            case 3 -> {
                // Lengths and counts claiming far more than the message holds.
                out = valid.clone();
                int at = out.length == 0 ? 0 : random.nextInt(out.length);
                byte[] huge = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x0f};
                out = concat(java.util.Arrays.copyOf(out, at), huge, java.util.Arrays.copyOfRange(valid, at,
                        valid.length));
            }
            case 4 -> {
                out = new byte[random.nextInt(4096)];
                random.nextBytes(out);
            }
            default -> {
                byte[] tail = new byte[random.nextInt(64)];
                random.nextBytes(tail);
                if (schemaId > 0) {
                    // The writer's frame, an unknown id, or a frame with random Protobuf message indexes.
                    int id = random.nextInt(50) > 0 ? schemaId : 5000 + random.nextInt(3);
                    out = concat(ByteBuffer.allocate(5).put((byte) 0).putInt(id).array(), tail);
                } else {
                    out = concat(valid, tail);
                }
            }
        }
        return out;
    }

    private static GenericRecord avroRecord() {
        org.apache.avro.Schema s = TestSchemas.avro(AVRO);
        GenericRecord r = new GenericData.Record(s);
        r.put("id", "a");
        r.put("n", 1L);
        r.put("i", 2);
        r.put("f", 1.5f);
        r.put("d", 2.5);
        r.put("b", ByteBuffer.wrap(new byte[] {1, 2}));
        r.put("fx", new GenericData.Fixed(s.getField("fx").schema(), new byte[] {1, 2, 3, 4}));
        r.put("e", new GenericData.EnumSymbol(s.getField("e").schema(), "B"));
        r.put("tags", java.util.List.of("t"));
        r.put("m", java.util.Map.of("k", 3L));
        r.put("amount", ByteBuffer.wrap(new java.math.BigDecimal("12.34").unscaledValue().toByteArray()));
        r.put("at", 1_700_000_000_000_000L);
        GenericRecord p = new GenericData.Record(s.getField("either").schema().getTypes().get(1));
        p.put("p", 7);
        r.put("either", p);
        return r;
    }

    /** An Event written by hand in the Protobuf wire format: id, n, tags, counts, inner. */
    private static byte[] protoBytes() {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] id = "a".getBytes(StandardCharsets.UTF_8);
        out.write(0x0a);
        out.write(id.length);
        out.writeBytes(id);
        out.write(0x10);
        out.write(5);
        out.write(0x4a);
        out.write(1);
        out.write('t');
        // counts: map entry {key: "k", value: 3}
        out.writeBytes(new byte[] {0x52, 5, 0x0a, 1, 'k', 0x10, 3});
        // inner: {v: 9}
        out.writeBytes(new byte[] {0x5a, 2, 0x08, 9});
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, 64); i++) {
            sb.append(String.format("%02x", b[i]));
        }
        return sb + (b.length > 64 ? "... (" + b.length + " bytes)" : "");
    }
}
