package io.tributary.ingest.direct;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.tributary.schema.SchemaSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * How a key or value given as JSON in a push becomes the bytes the stream's decoder reads, the same bytes a Kafka
 * producer would have sent: a JSON Schema side takes the JSON text, a side without a schema a JSON string's UTF-8,
 * an inline Avro side the value in Avro's JSON encoding (re-encoded as an Avro binary datum). Protobuf and
 * registry-backed sides have no JSON form here: their bytes come base64 ({@code value_base64}) or in a binary body.
 * A JSON value that does not fit the schema is passed on as its JSON text, so it is NULL and counted (and rescued)
 * like an undecodable Kafka record rather than refused.
 *
 * <p>The value is read where it stands in the body: {@code p} is at its first token, and is left at its last. A JSON
 * Schema side copies the value's bytes out of the body as they came, so a push costs one parse of the body and the
 * decoder's own, not a tree built and written out again.
 */
sealed interface SideBytes {

    /**
     * @param p the body's parser, at the value's first token (not JSON null: that is a NULL side, read by the caller)
     * @param body the bytes {@code p} reads
     * @throws MalformedPushException when the side has no JSON form, or the value cannot have one
     */
    byte[] of(JsonParser p, byte[] body, String field) throws IOException;

    /** The bytes of the value at {@code p}, which is left at the value's last token. */
    static byte[] slice(JsonParser p, byte[] body) throws IOException {
        int start = Math.toIntExact(p.currentTokenLocation().getByteOffset());
        p.skipChildren();
        // A string's (or number's) token is read lazily: finish it, so the parser's position is past its end.
        p.finishToken();
        int end = Math.toIntExact(p.currentLocation().getByteOffset());
        return Arrays.copyOfRange(body, start, end);
    }

    static SideBytes of(SchemaSource source) {
        if (source instanceof SchemaSource.JsonSchema) {
            return new Json();
        }
        if (source instanceof SchemaSource.Plain) {
            return new Text();
        }
        if (source instanceof SchemaSource.Avro avro) {
            return new Avro(new Schema.Parser().parse(avro.text()));
        }
        return new None(source instanceof SchemaSource.Protobuf ? "Protobuf" : "registry-backed");
    }

    record Json() implements SideBytes {
        @Override
        public byte[] of(JsonParser p, byte[] body, String field) throws IOException {
            return slice(p, body);
        }
    }

    record Text() implements SideBytes {
        @Override
        public byte[] of(JsonParser p, byte[] body, String field) throws IOException {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                throw new MalformedPushException(field, "this side has no schema, so it is a string column: send a "
                        + "JSON string");
            }
            return p.getText().getBytes(StandardCharsets.UTF_8);
        }
    }

    record Avro(Schema schema) implements SideBytes {
        @Override
        public byte[] of(JsonParser p, byte[] body, String field) throws IOException {
            String text = new String(slice(p, body), StandardCharsets.UTF_8);
            try {
                Object datum = new GenericDatumReader<>(schema).read(null,
                        DecoderFactory.get().jsonDecoder(schema, text));
                ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
                BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
                new GenericDatumWriter<>(schema).write(datum, encoder);
                encoder.flush();
                return out.toByteArray();
            } catch (IOException | RuntimeException e) {
                // Not this schema's JSON: written as it came, so it decodes to NULL and is counted (and rescued).
                return text.getBytes(StandardCharsets.UTF_8);
            }
        }
    }

    record None(String kind) implements SideBytes {
        @Override
        public byte[] of(JsonParser p, byte[] body, String field) {
            throw new MalformedPushException(field, "this side's schema is " + kind + ", which has no JSON form "
                    + "here: send its bytes base64 in " + field + "_base64, or the batch as a binary body "
                    + "(Content-Type application/x-protobuf or avro/binary)");
        }
    }
}
