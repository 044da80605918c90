package io.tributary.schema;

import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;

/** Confluent-framed Avro: each message is read with the writer schema its id names, resolved to the column's. */
final class RegistryAvroDecoder implements Decoder {
    private final RegistryClient client;
    private final Schema reader;
    private final AvroValueReader root;
    private final Map<Integer, AvroDecoder> byWriterId = new HashMap<>();

    RegistryAvroDecoder(RegistryClient client, Schema reader, AvroValueReader root) {
        this.client = client;
        this.reader = AvroNullDefaults.of(reader);
        this.root = root;
    }

    @Override
    public Object decode(byte[] bytes) throws DecodeException {
        if (bytes == null) {
            return null;
        }
        int id = ConfluentFraming.schemaId(bytes);
        AvroDecoder decoder = byWriterId.get(id);
        if (decoder == null) {
            Schema writer = writerSchema(id);
            try {
                decoder = new AvroDecoder(writer, reader, root);
            } catch (RuntimeException e) {
                throw new DecodeException("schema id " + id + " cannot be resolved to the stream's schema");
            }
            byWriterId.put(id, decoder);
        }
        return decoder.decode(bytes, ConfluentFraming.HEADER, bytes.length - ConfluentFraming.HEADER);
    }

    private Schema writerSchema(int id) throws DecodeException {
        RegistryClient.RegisteredSchema writer = RegistrySchemas.fetch(client, id);
        if (!"AVRO".equals(writer.type())) {
            throw new DecodeException("schema id " + id + " is a " + writer.type() + " schema, not Avro");
        }
        try {
            return new Schema.Parser().parse(writer.text());
        } catch (RuntimeException e) {
            throw new DecodeException("schema id " + id + " is not an Avro schema this decoder can parse");
        }
    }
}
