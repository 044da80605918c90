package io.tributary.schema;

import static io.tributary.schema.TestSchemas.proto;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.StringValue;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UInt64Value;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/** Messages are encoded field by field with protobuf's CodedOutputStream, independently of the schema parser. */
class ProtoDecoderTest {

    interface Fields {
        void write(CodedOutputStream out) throws Exception;
    }

    static byte[] message(Fields fields) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        fields.write(out);
        out.flush();
        return bytes.toByteArray();
    }

    private static ByteString customer(String name) throws Exception {
        return ByteString.copyFrom(message(o -> o.writeString(1, name)));
    }

    private final Decoder decoder = proto(ProtoMappingTest.EVENT, "com.example.Event").newDecoder();

    @Test
    void roundTripsEveryTypeIntoTheColumnModel() throws Exception {
        byte[] bytes = message(o -> {
            o.writeInt32(1, -5);
            o.writeSInt32(2, -6);
            o.writeSFixed32(3, -7);
            o.writeInt64(4, -8L);
            o.writeSInt64(5, -9L);
            o.writeSFixed64(6, -10L);
            o.writeUInt32(7, -1);
            o.writeUInt64(8, -1L);
            o.writeFloat(9, 1.5f);
            o.writeDouble(10, 2.25);
            o.writeBool(11, true);
            o.writeString(12, "héllo");
            o.writeBytes(13, ByteString.copyFrom(new byte[] {1, 2}));
            o.writeEnum(14, 1);
            o.writeBytes(15, customer("Ann"));
            o.writeString(16, "a");
            o.writeString(16, "b");
            o.writeBytes(17, ByteString.copyFrom(message(e -> {
                e.writeString(1, "k");
                e.writeInt64(2, 42L);
            })));
            o.writeMessage(18, Timestamp.newBuilder().setSeconds(1_700_000_000L).setNanos(123_456_789).build());
            o.writeMessage(19, StringValue.of(""));
            o.writeMessage(20, UInt64Value.of(1L << 63));
            o.writeBytes(22, customer("Payer"));
            o.writeInt32(23, 0);
            o.writeBytes(24, customer("H1"));
            o.writeBytes(24, customer("H2"));
            o.writeBytes(25, ByteString.copyFrom(message(e -> {
                e.writeString(1, "c1");
                e.writeBytes(2, customer("Cy"));
            })));
        });

        GenericRecord r = (GenericRecord) decoder.decode(bytes);
        assertThat(r.get("i32")).isEqualTo(-5);
        assertThat(r.get("s32")).isEqualTo(-6);
        assertThat(r.get("sf32")).isEqualTo(-7);
        assertThat(r.get("i64")).isEqualTo(-8L);
        assertThat(r.get("s64")).isEqualTo(-9L);
        assertThat(r.get("sf64")).isEqualTo(-10L);
        assertThat(r.get("u32")).isEqualTo(4_294_967_295L);
        assertThat(r.get("u64")).isEqualTo(new BigDecimal("18446744073709551615"));
        assertThat(r.get("f")).isEqualTo(1.5f);
        assertThat(r.get("d")).isEqualTo(2.25d);
        assertThat(r.get("b")).isEqualTo(true);
        assertThat(r.get("s")).isEqualTo("héllo");
        assertThat(r.get("raw")).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2}));
        assertThat(r.get("color")).isEqualTo("GREEN");
        assertThat(((GenericRecord) r.get("customer")).get("name")).isEqualTo("Ann");
        assertThat(r.get("tags")).isEqualTo(List.of("a", "b"));
        assertThat(r.get("counts")).isEqualTo(Map.of("k", 42L));
        assertThat(r.get("at")).isEqualTo(1_700_000_000_123_456L);
        assertThat(r.get("note")).isEqualTo("");
        assertThat(r.get("big")).isEqualTo(new BigDecimal("9223372036854775808"));
        assertThat(r.get("card")).isNull();
        assertThat(((GenericRecord) r.get("payer")).get("name")).isEqualTo("Payer");
        assertThat(r.get("maybe")).isEqualTo(0);
        assertThat(((List<?>) r.get("history")).stream().map(h -> ((GenericRecord) h).get("name")))
                .containsExactly("H1", "H2");
        assertThat(((GenericRecord) ((Map<?, ?>) r.get("by_id")).get("c1")).get("name")).isEqualTo("Cy");
    }

    @Test
    void unsetProto3ScalarsAndMessagesAreNull() throws Exception {
        GenericRecord empty = (GenericRecord) decoder.decode(new byte[0]);
        for (String f : List.of("i32", "u64", "s", "raw", "color", "customer", "at", "note", "big", "card", "maybe")) {
            assertThat(empty.get(f)).as(f).isNull();
        }
        assertThat(empty.get("tags")).isEqualTo(List.of());
        assertThat(empty.get("counts")).isEqualTo(Map.of());

        // proto3 cannot tell a default written on the wire from an unset field.
        GenericRecord zeros = (GenericRecord) decoder.decode(message(o -> {
            o.writeInt32(1, 0);
            o.writeString(12, "");
        }));
        assertThat(zeros.get("i32")).isNull();
        assertThat(zeros.get("s")).isNull();
    }

    @Test
    void unknownEnumNumbersKeepTheirNumber() throws Exception {
        GenericRecord r = (GenericRecord) decoder.decode(message(o -> o.writeEnum(14, 7)));
        assertThat(r.get("color")).isEqualTo("7");
    }

    @Test
    void proto2UnsetOptionalIsNullNotItsDefaultAndMissingRequiredFails() throws Exception {
        Decoder d = proto("""
            syntax = "proto2";
            package p;
            message M { required string id = 1; optional int32 n = 2 [default = 5]; }
            """, "p.M").newDecoder();
        GenericRecord r = (GenericRecord) d.decode(message(o -> o.writeString(1, "x")));
        assertThat(r.get("id")).isEqualTo("x");
        assertThat(r.get("n")).isNull();
        GenericRecord zero = (GenericRecord) d.decode(message(o -> {
            o.writeString(1, "x");
            o.writeInt32(2, 0);
        }));
        assertThat(zero.get("n")).isEqualTo(0);
        assertThatThrownBy(() -> d.decode(message(o -> o.writeInt32(2, 1)))).isInstanceOf(DecodeException.class);
    }

    @Test
    void garbageFails() {
        assertThatThrownBy(() -> decoder.decode(new byte[] {(byte) 0xff, (byte) 0xff, 0x01}))
                .isInstanceOf(DecodeException.class);
        assertThatThrownBy(() -> decoder.decode(new byte[] {0x7a, 0x10, 0x01})).isInstanceOf(DecodeException.class);
    }

    @Test
    void nullBytesAreNull() throws Exception {
        assertThat(decoder.decode(null)).isNull();
    }
}
