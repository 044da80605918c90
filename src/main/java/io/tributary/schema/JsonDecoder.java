package io.tributary.schema;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;

/**
 * Streams one JSON document through the precompiled plan, without building a tree. Anything that is not exactly one
 * well-formed JSON value matching the plan is a {@link DecodeException}. A document is first read by the fast path
 * ({@link AsciiJson}, which covers what producers usually send); one it does not cover, or that is wrong, is read by
 * Jackson, whose reading is the definition of values and failures.
 */
final class JsonDecoder implements Decoder {
    /**
     * Thread-safe and holds the shared field-name symbol table, so one for the process. Jackson caps a string value at
     * 20 million characters by default, which would turn an oversized record (SPEC 4: ingested whole) into NULL with a
     * misleading "malformed JSON"; a string cannot be longer than the record's bytes, which the broker already bounds,
     * so the cap guards nothing here. Nesting depth and number length keep their limits.
     */
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
            .build();

    /** What {@link #fast} returns for a document it leaves to Jackson. */
    static final Object NOT_FAST = new Object();

    private final JsonValueReader root;
    private final boolean fastPath;

    JsonDecoder(JsonValueReader root) {
        this.root = root;
        this.fastPath = DirectDecoding.enabled();
    }

    /** The fast path's value of a document, or {@link #NOT_FAST}. */
    Object fast(byte[] bytes) {
        try {
            AsciiJson in = new AsciiJson(bytes);
            Object value = root.fast(in);
            return in.atEnd() ? value : NOT_FAST;
        } catch (AsciiJson.Bail e) {
            return NOT_FAST;
        }
    }

    @Override
    public Object decode(byte[] bytes) throws DecodeException {
        if (bytes == null) {
            return null;
        }
        if (fastPath) {
            try {
                Object value = fast(bytes);
                if (value != NOT_FAST) {
                    return value;
                }
            } catch (RuntimeException e) {
                // A defect of the fast path must not turn a readable document into NULL: Jackson decides.
            }
        }
        try (JsonParser p = FACTORY.createParser(bytes)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new DecodeException("empty input is not a JSON document");
            }
            Object value = root.read(p, first, bytes);
            if (p.nextToken() != null) {
                throw new DecodeException("unexpected content after the JSON document at byte "
                        + p.currentTokenLocation().getByteOffset());
            }
            return value;
        } catch (JsonProcessingException e) {
            // Jackson's own message may quote the payload; report only where it broke.
            throw new DecodeException("malformed JSON"
                    + (e.getLocation() == null ? "" : " at byte " + e.getLocation().getByteOffset()));
        } catch (IOException e) {
            throw new DecodeException("unreadable JSON: " + e.getClass().getSimpleName());
        }
    }
}
