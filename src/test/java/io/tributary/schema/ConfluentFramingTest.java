package io.tributary.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Frames are built byte by byte as Confluent's KafkaAvroSerializer and KafkaProtobufSerializer write them. */
class ConfluentFramingTest {

    /** magic byte 0, then the schema id as a big-endian int (ByteBuffer's default order). */
    static byte[] header(int id) {
        return ByteBuffer.allocate(5).put((byte) 0).putInt(id).array();
    }

    /** Confluent's ByteUtils.writeVarint: zig-zag, then base-128 little-endian groups. */
    static void writeZigZag(ByteArrayOutputStream out, int value) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & 0xffffff80) != 0) {
            out.write((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }

    /** Confluent's MessageIndexes.toByteArray: [0] is the single byte 0, otherwise count then indexes. */
    static byte[] protobufFrame(int id, int[] indexes, byte[] payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(header(id));
        if (indexes.length == 1 && indexes[0] == 0) {
            out.write(0);
        } else {
            writeZigZag(out, indexes.length);
            for (int i : indexes) {
                writeZigZag(out, i);
            }
        }
        out.writeBytes(payload);
        return out.toByteArray();
    }

    static byte[] avroFrame(int id, byte[] payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(header(id));
        out.writeBytes(payload);
        return out.toByteArray();
    }

    @Test
    void readsTheSchemaId() throws Exception {
        assertThat(ConfluentFraming.schemaId(avroFrame(1, new byte[] {7}))).isEqualTo(1);
        assertThat(ConfluentFraming.schemaId(avroFrame(0x01020304, new byte[0]))).isEqualTo(0x01020304);
        assertThat(ConfluentFraming.schemaId(avroFrame(0xfffffff0, new byte[0]))).isEqualTo(0xfffffff0);
    }

    @Test
    void rejectsMissingMagicOrShortFrames() {
        assertThatThrownBy(() -> ConfluentFraming.schemaId(new byte[] {1, 0, 0, 0, 1}))
                .isInstanceOf(DecodeException.class).hasMessageContaining("first byte");
        assertThatThrownBy(() -> ConfluentFraming.schemaId(new byte[] {0, 0, 0}))
                .isInstanceOf(DecodeException.class).hasMessageContaining("too short");
    }

    @Test
    void readsProtobufMessageIndexes() throws Exception {
        byte[] payload = {0x08, 0x01};
        ConfluentFraming.ProtoFrame first = ConfluentFraming.protobuf(protobufFrame(42, new int[] {0}, payload));
        assertThat(first.schemaId()).isEqualTo(42);
        assertThat(first.indexes()).containsExactly(0);
        assertThat(first.payloadOffset()).isEqualTo(6);

        ConfluentFraming.ProtoFrame nested = ConfluentFraming.protobuf(
                protobufFrame(42, new int[] {1, 0, 70}, payload));
        assertThat(nested.indexes()).containsExactly(1, 0, 70);
        // count 3 -> 6, indexes 1 -> 2, 0 -> 0, 70 -> 140 (two bytes)
        assertThat(nested.payloadOffset()).isEqualTo(5 + 1 + 1 + 1 + 2);
    }

    @Test
    void rejectsCorruptIndexes() {
        byte[] truncated = {0, 0, 0, 0, 1, 4, 2};
        assertThatThrownBy(() -> ConfluentFraming.protobuf(truncated)).isInstanceOf(DecodeException.class);
        byte[] hugeCount = {0, 0, 0, 0, 1, (byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07};
        assertThatThrownBy(() -> ConfluentFraming.protobuf(hugeCount)).isInstanceOf(DecodeException.class);
        byte[] negativeIndex = {0, 0, 0, 0, 1, 2, 1};
        assertThatThrownBy(() -> ConfluentFraming.protobuf(negativeIndex)).isInstanceOf(DecodeException.class);
    }
}
