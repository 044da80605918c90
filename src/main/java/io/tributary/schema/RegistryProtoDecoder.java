package io.tributary.schema;

import com.google.protobuf.Descriptors.Descriptor;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Confluent-framed Protobuf. The framing names the writer schema and which of its messages was written; if that is the
 * stream's message type, the payload is parsed with the column's descriptor (Protobuf's wire format keeps compatible
 * versions readable: new fields are skipped, removed ones stay unset). Another message type is a decode failure.
 */
final class RegistryProtoDecoder implements Decoder {
    private final RegistryClient client;
    private final ProtoDecoder payload;
    private final String messageName;
    /** Writer id and message indexes to the written message's full name. */
    private final Map<String, String> writtenTypes = new HashMap<>();

    RegistryProtoDecoder(RegistryClient client, Descriptor message, ProtoTypeMapper.Converter converter,
            ProtoWireReader.Plan plan) {
        this.client = client;
        this.payload = new ProtoDecoder(message, converter, plan);
        this.messageName = message.getFullName();
    }

    @Override
    public Object decode(byte[] bytes) throws DecodeException {
        if (bytes == null) {
            return null;
        }
        ConfluentFraming.ProtoFrame frame = ConfluentFraming.protobuf(bytes);
        String key = frame.schemaId() + Arrays.toString(frame.indexes());
        String written = writtenTypes.get(key);
        if (written == null) {
            written = writtenType(frame);
            writtenTypes.put(key, written);
        }
        if (!written.equals(messageName)) {
            throw new DecodeException("message type " + written + " is not the stream's " + messageName);
        }
        return payload.decode(bytes, frame.payloadOffset(), bytes.length - frame.payloadOffset());
    }

    private String writtenType(ConfluentFraming.ProtoFrame frame) throws DecodeException {
        RegistryClient.RegisteredSchema writer = RegistrySchemas.fetch(client, frame.schemaId());
        if (!"PROTOBUF".equals(writer.type())) {
            throw new DecodeException("schema id " + frame.schemaId() + " is a " + writer.type()
                    + " schema, not Protobuf");
        }
        try {
            return ProtoFileParser.messageNameAt(writer.text(), frame.indexes());
        } catch (RuntimeException e) {
            throw new DecodeException("message indexes " + Arrays.toString(frame.indexes())
                    + " do not name a message of schema id " + frame.schemaId());
        }
    }
}
