package io.tributary.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * What Confluent's serializers do, by hand (their jars are not on Maven Central): register a schema under a subject
 * through the Confluent REST API, and frame payloads as magic byte 0, the 4-byte big-endian schema id, for Protobuf the
 * message-index list (a single 0 for the file's first message), then the payload.
 */
public final class ConfluentWire {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private ConfluentWire() {}

    /** @return the registered schema's global id */
    public static int register(String registryUrl, String subject, String schemaType, String schema) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("schema", schema);
        if (!"AVRO".equals(schemaType)) {
            body.put("schemaType", schemaType);
        }
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(registryUrl + "/subjects/" + subject
                            + "/versions")).header("Content-Type", "application/vnd.schemaregistry.v1+json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("registering " + subject + " failed: " + r.statusCode() + " " + r.body());
            }
            return JSON.readTree(r.body()).get("id").asInt();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static byte[] avro(int schemaId, GenericRecord record) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.writeBytes(ByteBuffer.allocate(4).putInt(schemaId).array());
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        try {
            new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** A Protobuf payload of the schema's first message (Confluent writes its index list as the single byte 0). */
    public static byte[] protobufFirstMessage(int schemaId, byte[] payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.writeBytes(ByteBuffer.allocate(4).putInt(schemaId).array());
        out.write(0);
        out.writeBytes(payload);
        return out.toByteArray();
    }

    public static Schema parse(String avro) {
        return new Schema.Parser().parse(avro);
    }
}
