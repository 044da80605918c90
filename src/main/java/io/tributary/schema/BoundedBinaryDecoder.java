package io.tributary.schema;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * Avro's binary encoding over one message's bytes, checking every length and item count against the bytes that are
 * left before allocating anything. Avro's own BinaryDecoder only checks against JVM-wide limits (about 2 GB), so five
 * crafted bytes could make it allocate a gigabyte or loop over billions of null items; a Kafka message must not be
 * able to do that. A collection may not claim more items than there are bytes left, which every valid datum meets
 * except an array of more nulls than its message has bytes.
 *
 * <p>Hand-written on purpose: Avro offers no decoder bounded by the message, and its limits are system properties
 * for the whole JVM, which would also bind every other Avro user in the process.
 */
final class BoundedBinaryDecoder extends Decoder {
    private byte[] buf;
    private int pos;
    private int limit;

    void reset(byte[] bytes, int offset, int length) {
        this.buf = bytes;
        this.pos = offset;
        this.limit = offset + length;
    }

    boolean isEnd() {
        return pos == limit;
    }

    @Override
    public void readNull() {
    }

    @Override
    public boolean readBoolean() throws IOException {
        require(1);
        int b = buf[pos++];
        if (b != 0 && b != 1) {
            throw new AvroRuntimeException("invalid boolean byte");
        }
        return b == 1;
    }

    @Override
    public int readInt() throws IOException {
        long v = readVarint(5);
        int raw = (int) v;
        return (raw >>> 1) ^ -(raw & 1);
    }

    @Override
    public long readLong() throws IOException {
        long raw = readVarint(10);
        return (raw >>> 1) ^ -(raw & 1);
    }

    private long readVarint(int maxBytes) throws IOException {
        long value = 0;
        for (int i = 0; i < maxBytes; i++) {
            require(1);
            byte b = buf[pos++];
            value |= (long) (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new AvroRuntimeException("invalid varint");
    }

    @Override
    public float readFloat() throws IOException {
        require(4);
        int bits = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8 | (buf[pos + 2] & 0xff) << 16
                | (buf[pos + 3] & 0xff) << 24;
        pos += 4;
        return Float.intBitsToFloat(bits);
    }

    @Override
    public double readDouble() throws IOException {
        require(8);
        long bits = 0;
        for (int i = 7; i >= 0; i--) {
            bits = (bits << 8) | (buf[pos + i] & 0xff);
        }
        pos += 8;
        return Double.longBitsToDouble(bits);
    }

    @Override
    public Utf8 readString(Utf8 old) throws IOException {
        int length = length();
        Utf8 result = old != null ? old : new Utf8();
        result.setByteLength(length);
        System.arraycopy(buf, pos, result.getBytes(), 0, length);
        pos += length;
        return result;
    }

    @Override
    public String readString() throws IOException {
        int length = length();
        String s = new String(buf, pos, length, StandardCharsets.UTF_8);
        pos += length;
        return s;
    }

    @Override
    public void skipString() throws IOException {
        int length = length();
        pos += length;
    }

    @Override
    public ByteBuffer readBytes(ByteBuffer old) throws IOException {
        int length = length();
        byte[] copy = new byte[length];
        System.arraycopy(buf, pos, copy, 0, length);
        pos += length;
        return ByteBuffer.wrap(copy);
    }

    @Override
    public void skipBytes() throws IOException {
        int length = length();
        pos += length;
    }

    @Override
    public void readFixed(byte[] bytes, int start, int length) throws IOException {
        require(length);
        System.arraycopy(buf, pos, bytes, start, length);
        pos += length;
    }

    @Override
    public void skipFixed(int length) throws IOException {
        require(length);
        pos += length;
    }

    @Override
    public int readEnum() throws IOException {
        return readInt();
    }

    @Override
    public long readArrayStart() throws IOException {
        return blockCount();
    }

    @Override
    public long arrayNext() throws IOException {
        return blockCount();
    }

    @Override
    public long skipArray() throws IOException {
        return skipBlocks();
    }

    @Override
    public long readMapStart() throws IOException {
        return blockCount();
    }

    @Override
    public long mapNext() throws IOException {
        return blockCount();
    }

    @Override
    public long skipMap() throws IOException {
        return skipBlocks();
    }

    @Override
    public int readIndex() throws IOException {
        return readInt();
    }

    /** The item count of the next block; a negative count is followed by the block's size in bytes. */
    private long blockCount() throws IOException {
        long count = readLong();
        if (count < 0) {
            long size = readLong();
            if (size < 0 || size > limit - pos) {
                throw new EOFException("block size beyond the message");
            }
            count = -count;
        }
        if (count > limit - pos) {
            throw new EOFException("more items than bytes left in the message");
        }
        return count;
    }

    /** Skips blocks that carry their byte size; returns the count of the next block to skip item by item. */
    private long skipBlocks() throws IOException {
        while (true) {
            long count = readLong();
            if (count >= 0) {
                if (count > limit - pos) {
                    throw new EOFException("more items than bytes left in the message");
                }
                return count;
            }
            long size = readLong();
            if (size < 0 || size > limit - pos) {
                throw new EOFException("block size beyond the message");
            }
            pos += (int) size;
        }
    }

    private int length() throws IOException {
        long length = readLong();
        if (length < 0 || length > limit - pos) {
            throw new EOFException("length beyond the message");
        }
        return (int) length;
    }

    private void require(int n) throws EOFException {
        if (n < 0 || n > limit - pos) {
            throw new EOFException("message ends early");
        }
    }
}
