package io.tributary.schema;

/**
 * The Confluent wire format: a zero magic byte, the writer schema's registry id as a 4-byte big-endian int, then for
 * Protobuf the message indexes (which message of the schema file, as a path through nested messages: a zig-zag varint
 * count followed by zig-zag varint indexes, with a single 0 byte standing for the first message), then the payload.
 */
final class ConfluentFraming {
    static final int HEADER = 5;

    /** The message indexes of a Protobuf frame and where its payload starts. */
    record ProtoFrame(int schemaId, int[] indexes, int payloadOffset) {}

    private static final int[] FIRST_MESSAGE = {0};

    private ConfluentFraming() {}

    static int schemaId(byte[] bytes) throws DecodeException {
        if (bytes.length < HEADER) {
            throw new DecodeException("too short for the schema-registry framing (" + bytes.length + " bytes)");
        }
        if (bytes[0] != 0) {
            throw new DecodeException("no schema-registry framing (the first byte is not 0)");
        }
        return ((bytes[1] & 0xff) << 24) | ((bytes[2] & 0xff) << 16) | ((bytes[3] & 0xff) << 8) | (bytes[4] & 0xff);
    }

    static ProtoFrame protobuf(byte[] bytes) throws DecodeException {
        int id = schemaId(bytes);
        int[] position = {HEADER};
        int count = readZigZagVarint(bytes, position);
        if (count == 0) {
            return new ProtoFrame(id, FIRST_MESSAGE, position[0]);
        }
        // Each index takes at least one byte, which bounds what a corrupt count can make us allocate.
        if (count < 0 || count > bytes.length - position[0]) {
            throw new DecodeException("corrupt Protobuf message indexes in the schema-registry framing");
        }
        int[] indexes = new int[count];
        for (int i = 0; i < count; i++) {
            indexes[i] = readZigZagVarint(bytes, position);
            if (indexes[i] < 0) {
                throw new DecodeException("corrupt Protobuf message indexes in the schema-registry framing");
            }
        }
        return new ProtoFrame(id, indexes, position[0]);
    }

    private static int readZigZagVarint(byte[] bytes, int[] position) throws DecodeException {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (position[0] >= bytes.length) {
                throw new DecodeException("truncated Protobuf message indexes in the schema-registry framing");
            }
            byte b = bytes[position[0]++];
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (value >>> 1) ^ -(value & 1);
            }
        }
        throw new DecodeException("corrupt varint in the schema-registry framing");
    }
}
