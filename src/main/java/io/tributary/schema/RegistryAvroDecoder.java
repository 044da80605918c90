package io.tributary.schema;

import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * Confluent-framed Avro: each message is read with the writer schema its id names, resolved to the column's. Messages
 * written with the column's own schema (the usual case: producers on the pinned version) are read without the
 * resolving decoder, as plain Avro streams are ({@link AvroDecoder}).
 */
final class RegistryAvroDecoder implements Decoder {
    private final RegistryClient client;
    /** The schema the column and {@link #root} were compiled from. */
    private final Schema schema;
    /** {@link #schema} with null defaults: what other writers' schemas resolve to. */
    private final Schema reader;
    private final AvroValueReader root;
    private final Map<Integer, AvroDecoder> byWriterId = new HashMap<>();
    /** {@link DirectDecoding} when this decoder was made: its writers' decoders come later, one per schema id. */
    private final boolean direct = DirectDecoding.enabled();

    RegistryAvroDecoder(RegistryClient client, Schema reader, AvroValueReader root) {
        this.client = client;
        this.schema = reader;
        this.reader = AvroNullDefaults.of(reader);
        this.root = root;
    }

    /** The decoder of messages framed with this writer schema id, made on its first message. */
    AvroDecoder decoderFor(int id) throws DecodeException {
        AvroDecoder decoder = byWriterId.get(id);
        if (decoder == null) {
            Schema writer = writerSchema(id);
            try {
                // Equal schemas need no resolution (and no null defaults: no field can be missing), so the decoder
                // reads the datum directly.
                decoder = new AvroDecoder(writer, writer.equals(schema) ? schema : reader, root, direct);
            } catch (RuntimeException e) {
                throw new DecodeException("schema id " + id + " cannot be resolved to the stream's schema");
            }
            byWriterId.put(id, decoder);
        }
        return decoder;
    }

    @Override
    public Object decode(byte[] bytes) throws DecodeException {
        if (bytes == null) {
            return null;
        }
        int id = ConfluentFraming.schemaId(bytes);
        return decoderFor(id).decode(bytes, ConfluentFraming.HEADER, bytes.length - ConfluentFraming.HEADER);
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
