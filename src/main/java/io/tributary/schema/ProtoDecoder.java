package io.tributary.schema;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;

/** Parses Protobuf binary messages with DynamicMessage and converts them into the column. */
final class ProtoDecoder implements Decoder {
    private final Descriptor message;
    private final ProtoTypeMapper.Converter converter;

    ProtoDecoder(Descriptor message, ProtoTypeMapper.Converter converter) {
        this.message = message;
        this.converter = converter;
    }

    @Override
    public Object decode(byte[] bytes) throws DecodeException {
        return bytes == null ? null : decode(bytes, 0, bytes.length);
    }

    Object decode(byte[] bytes, int offset, int length) throws DecodeException {
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
