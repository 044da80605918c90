package io.tributary.schema;

import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.ResolvingDecoder;

/**
 * Decodes Avro binary datums written with one writer schema into the column of a reader schema. The resolving decoder
 * is built once (building it is the expensive part) and re-pointed at each message; the bytes are read by a
 * {@link BoundedBinaryDecoder}, so no message can make it allocate more than its own size.
 */
final class AvroDecoder implements Decoder {
    private final AvroValueReader root;
    private final ResolvingDecoder resolving;
    private final BoundedBinaryDecoder binary = new BoundedBinaryDecoder();

    /** Datums written with the reader schema itself are read without the resolving decoder (null then). */
    AvroDecoder(Schema writer, Schema reader, AvroValueReader root) {
        this(writer, reader, root, DirectDecoding.enabled());
    }

    /** @param direct whether the direct way may be taken ({@link DirectDecoding}, as its caller read it) */
    AvroDecoder(Schema writer, Schema reader, AvroValueReader root, boolean direct) {
        this.root = root;
        if (direct && writer.equals(reader)) {
            this.resolving = null;
            return;
        }
        try {
            this.resolving = DecoderFactory.get().resolvingDecoder(writer, reader, null);
        } catch (IOException e) {
            throw new IllegalStateException("cannot resolve Avro writer schema against reader schema", e);
        }
    }

    /** Whether datums are read without the resolving decoder. */
    boolean direct() {
        return resolving == null;
    }

    @Override
    public Object decode(byte[] bytes) throws DecodeException {
        return bytes == null ? null : decode(bytes, 0, bytes.length);
    }

    Object decode(byte[] bytes, int offset, int length) throws DecodeException {
        binary.reset(bytes, offset, length);
        try {
            Object value;
            if (resolving == null) {
                value = root.read(binary);
            } else {
                resolving.configure(binary);
                value = root.read(resolving);
                resolving.drain();
            }
            if (!binary.isEnd()) {
                throw new DecodeException("bytes left over after the Avro datum");
            }
            return value;
        } catch (IOException | RuntimeException e) {
            // Truncated input, a bad union/enum index or an incompatible writer: the message stays value-free.
            throw new DecodeException("not an Avro datum of the declared schema (" + e.getClass().getSimpleName() + ")");
        }
    }
}
