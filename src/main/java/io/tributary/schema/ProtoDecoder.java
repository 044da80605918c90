package io.tributary.schema;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;

/**
 * Decodes Protobuf binary messages into the column: by field number straight from the wire ({@link ProtoWireReader}),
 * or, with {@code tributary.ingest.direct-write=false} (the path before issue #17, kept for comparisons), by parsing
 * a DynamicMessage and converting it. Both give the same values and the same decode failures.
 */
final class ProtoDecoder implements Decoder {
    private final Descriptor message;
    private final ProtoTypeMapper.Converter converter;
    /** Null when decoding through DynamicMessage. */
    private final ProtoWireReader wire;

    ProtoDecoder(Descriptor message, ProtoTypeMapper.Converter converter, ProtoWireReader.Plan plan) {
        this.message = message;
        this.converter = converter;
        this.wire = DirectDecoding.enabled() ? new ProtoWireReader(plan, message.getFullName()) : null;
    }

    @Override
    public Object decode(byte[] bytes) throws DecodeException {
        return bytes == null ? null : decode(bytes, 0, bytes.length);
    }

    Object decode(byte[] bytes, int offset, int length) throws DecodeException {
        if (wire != null) {
            return wire.decode(bytes, offset, length);
        }
        DynamicMessage m;
        try {
            m = DynamicMessage.newBuilder(message).mergeFrom(bytes, offset, length).build();
        } catch (InvalidProtocolBufferException e) {
            throw new DecodeException("not a Protobuf " + message.getFullName() + " message");
        } catch (RuntimeException e) {
            // build() refuses a proto2 message whose required fields are missing.
            throw new DecodeException("incomplete Protobuf " + message.getFullName() + " message: "
                    + e.getClass().getSimpleName());
        }
        try {
            return converter.convert(m);
        } catch (ArithmeticException e) {
            throw new DecodeException("a Protobuf Timestamp outside the column's range");
        }
    }
}
