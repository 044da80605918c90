package io.tributary.ingest.direct;

import com.fasterxml.jackson.databind.JsonNode;
import io.tributary.schema.SchemaSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
 */
sealed interface SideBytes {

    /** @throws MalformedPushException when the side has no JSON form, or the value cannot have one */
    byte[] of(JsonNode value, String field);

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
        public byte[] of(JsonNode value, String field) {
            return value.toString().getBytes(StandardCharsets.UTF_8);
        }
    }

    record Text() implements SideBytes {
        @Override
        public byte[] of(JsonNode value, String field) {
            if (!value.isTextual()) {
                throw new MalformedPushException(field, "this side has no schema, so it is a string column: send a "
                        + "JSON string");
            }
            return value.asText().getBytes(StandardCharsets.UTF_8);
        }
    }

    record Avro(Schema schema) implements SideBytes {
        @Override
        public byte[] of(JsonNode value, String field) {
            String text = value.toString();
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
        public byte[] of(JsonNode value, String field) {
            throw new MalformedPushException(field, "this side's schema is " + kind + ", which has no JSON form "
                    + "here: send its bytes base64 in " + field + "_base64, or the batch as a binary body "
                    + "(Content-Type application/x-protobuf or avro/binary)");
        }
    }
}
