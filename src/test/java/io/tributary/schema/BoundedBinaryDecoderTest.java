package io.tributary.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;

/** Reads back what Avro's own BinaryEncoder writes. */
class BoundedBinaryDecoderTest {

    @Test
    void readsWhatAvrosEncoderWrites() throws Exception {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            int i = random.nextInt();
            long l = random.nextLong();
            float f = random.nextFloat() * 1e6f - 5e5f;
            double d = random.nextGaussian() * 1e12;
            String s = "s" + random.nextInt() + "é";
            byte[] bytes = new byte[random.nextInt(20)];
            random.nextBytes(bytes);

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
            e.writeInt(i);
            e.writeLong(l);
            e.writeFloat(f);
            e.writeDouble(d);
            e.writeBoolean(round % 2 == 0);
            e.writeString(s);
            e.writeBytes(bytes);
            e.writeFixed(new byte[] {7, 8, 9});
            e.writeEnum(3);
            e.writeIndex(1);
            e.writeString(new Utf8("utf8"));
            e.flush();

            byte[] data = out.toByteArray();
            BoundedBinaryDecoder in = new BoundedBinaryDecoder();
            in.reset(data, 0, data.length);
            assertThat(in.readInt()).isEqualTo(i);
            assertThat(in.readLong()).isEqualTo(l);
            assertThat(in.readFloat()).isEqualTo(f);
            assertThat(in.readDouble()).isEqualTo(d);
            assertThat(in.readBoolean()).isEqualTo(round % 2 == 0);
            assertThat(in.readString()).isEqualTo(s);
            assertThat(in.readBytes(null)).isEqualTo(ByteBuffer.wrap(bytes));
            byte[] fixed = new byte[3];
            in.readFixed(fixed);
            assertThat(fixed).containsExactly(7, 8, 9);
            assertThat(in.readEnum()).isEqualTo(3);
            assertThat(in.readIndex()).isEqualTo(1);
            assertThat(in.readString(null).toString()).isEqualTo("utf8");
            assertThat(in.isEnd()).isTrue();
        }
    }

    @Test
    void readsOnlyItsSlice() throws Exception {
        byte[] data = {9, 9, 0x04, 'h', 'i', 9};
        BoundedBinaryDecoder in = new BoundedBinaryDecoder();
        in.reset(data, 2, 3);
        assertThat(in.readString()).isEqualTo("hi");
        assertThat(in.isEnd()).isTrue();
        in.reset(data, 2, 2);
        assertThatThrownBy(in::readString).isInstanceOf(EOFException.class);
    }
}
