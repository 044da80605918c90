package io.tributary.ingest.direct;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.tributary.schema.SchemaSource;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Reads a push body into a {@link Push}: JSON (values as their schema describes, see {@link SideBytes}), or one of
 * two binary envelopes whose keys and values are already the stream's bytes, as a Kafka producer would send them:
 * Protobuf ({@link #PROTOBUF}: {@code producer_id = 1} string, {@code sequence = 2} int64, repeated
 * {@code records = 3} of {@code key = 1} bytes, {@code value = 2} bytes, {@code timestamp_ms = 3} int64) or Avro
 * ({@link #AVRO}: the record {@link #AVRO_SCHEMA}). Every refusal names the field, e.g. {@code records[3].value}.
 */
public final class PushBodies {
    public static final String PROTOBUF = "application/x-protobuf";
    public static final String AVRO = "avro/binary";
    public static final Schema AVRO_SCHEMA = new Schema.Parser().parse("""
            {"type": "record", "name": "PushRequest", "namespace": "io.tributary.push", "fields": [
              {"name": "producer_id", "type": "string"},
              {"name": "sequence", "type": "long"},
              {"name": "records", "type": {"type": "array", "items": {"type": "record", "name": "PushRecord",
                "fields": [
                  {"name": "key", "type": ["null", "bytes"], "default": null},
                  {"name": "value", "type": ["null", "bytes"], "default": null},
                  {"name": "timestamp_ms", "type": ["null", "long"], "default": null}]}}}]}""");

    private static final Pattern PRODUCER_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Set<String> TOP = Set.of("producer_id", "sequence", "records");
    private static final Set<String> RECORD = Set.of("key", "value", "key_base64", "value_base64", "timestamp");

    private final SideBytes key;
    private final SideBytes value;

    /** The sides of one stream: how their JSON values become bytes. */
    public PushBodies(SchemaSource key, SchemaSource value) {
        this.key = SideBytes.of(key);
        this.value = SideBytes.of(value);
    }

    /**
     * @param contentType the body's media type without parameters (null or JSON: JSON)
     * @param receivedAtMs the time of records that carry none
     */
    public Push read(String contentType, byte[] body, long receivedAtMs) {
        String type = contentType == null ? "application/json" : contentType.toLowerCase(java.util.Locale.ROOT);
        Push push;
        if (type.equals(PROTOBUF) || type.equals("application/protobuf")) {
            push = protobuf(body, receivedAtMs);
        } else if (type.equals(AVRO) || type.equals("application/avro")) {
            push = avro(body, receivedAtMs);
        } else if (type.equals("application/json") || type.endsWith("+json")) {
            push = json(body, receivedAtMs);
        } else {
            throw new MalformedPushException("Content-Type", "'" + contentType + "' is not a push body: use "
                    + "application/json, " + PROTOBUF + " or " + AVRO);
        }
        return checked(push);
    }

    private static Push checked(Push push) {
        if (push.producerId() == null) {
            throw new MalformedPushException("producer_id", "is required: name the producer, e.g. \"p-1\"");
        }
        if (!PRODUCER_ID.matcher(push.producerId()).matches()) {
            throw new MalformedPushException("producer_id", "use 1 to 128 letters, digits, '.', '_', ':' or '-'");
        }
        if (push.sequence() < 0) {
            throw new MalformedPushException("sequence", "must be a non-negative integer: the producer's batch "
                    + "number, 0 for its first batch");
        }
        if (push.records().isEmpty()) {
            throw new MalformedPushException("records", "must hold at least one record");
        }
        return push;
    }

    private Push json(byte[] body, long receivedAtMs) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new MalformedPushException("body", "is not valid JSON"
                    + (e.getLocation() == null ? "" : " (at byte " + e.getLocation().getByteOffset() + ")"));
        } catch (IOException e) {
            throw new MalformedPushException("body", "cannot be read");
        }
        if (root == null || !root.isObject()) {
            throw new MalformedPushException("body", "must be a JSON object with producer_id, sequence and records");
        }
        unknown(root, TOP, "");
        JsonNode producer = root.get("producer_id");
        if (producer == null || producer.isNull()) {
            throw new MalformedPushException("producer_id", "is required: name the producer, e.g. \"p-1\"");
        }
        if (!producer.isTextual()) {
            throw new MalformedPushException("producer_id", "must be a string");
        }
        JsonNode sequence = root.get("sequence");
        if (sequence == null || !sequence.isIntegralNumber() || !sequence.canConvertToLong()) {
            throw new MalformedPushException("sequence", "is required and must be an integer: the producer's batch "
                    + "number, 0 for its first batch");
        }
        JsonNode records = root.get("records");
        if (records == null || !records.isArray()) {
            throw new MalformedPushException("records", "is required: a JSON array of {\"key\", \"value\", "
                    + "\"timestamp\"} objects");
        }
        List<Push.Record> out = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            out.add(record(records.get(i), "records[" + i + "]", receivedAtMs));
        }
        return new Push(producer.asText(), sequence.asLong(), out);
    }

    private Push.Record record(JsonNode r, String at, long receivedAtMs) {
        if (!r.isObject()) {
            throw new MalformedPushException(at, "must be an object with key, value and timestamp");
        }
        unknown(r, RECORD, at + ".");
        byte[] k = side(r, "key", key, at);
        byte[] v = side(r, "value", value, at);
        return new Push.Record(k, v, timestamp(r.get("timestamp"), at + ".timestamp", receivedAtMs));
    }

    private static byte[] side(JsonNode r, String name, SideBytes bytes, String at) {
        JsonNode json = r.get(name);
        JsonNode base64 = r.get(name + "_base64");
        String field = at + "." + name;
        if (json != null && base64 != null) {
            throw new MalformedPushException(field, "set " + name + " or " + name + "_base64, not both");
        }
        if (base64 != null && !base64.isNull()) {
            if (!base64.isTextual()) {
                throw new MalformedPushException(field + "_base64", "must be a base64 string");
            }
            try {
                return Base64.getDecoder().decode(base64.asText());
            } catch (IllegalArgumentException e) {
                throw new MalformedPushException(field + "_base64", "is not valid base64");
            }
        }
        if (json == null || json.isNull()) {
            return null;
        }
        return bytes.of(json, field);
    }

    private static long timestamp(JsonNode t, String field, long receivedAtMs) {
        if (t == null || t.isNull()) {
            return receivedAtMs;
        }
        if (t.isIntegralNumber() && t.canConvertToLong()) {
            return t.asLong();
        }
        if (t.isTextual()) {
            try {
                return OffsetDateTime.parse(t.asText()).toInstant().toEpochMilli();
            } catch (DateTimeException e) {
                // fall through to the refusal
            }
        }
        throw new MalformedPushException(field, "must be an RFC 3339 time such as 2026-12-01T10:00:00Z or epoch "
                + "milliseconds");
    }

    private static void unknown(JsonNode node, Set<String> known, String at) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            String name = it.next().getKey();
            if (!known.contains(name)) {
                throw new MalformedPushException(at + name, "is not a field of a push; use " + String.join(", ",
                        new java.util.TreeSet<>(known)));
            }
        }
    }

    private static Push protobuf(byte[] body, long receivedAtMs) {
        String producer = null;
        long sequence = -1;
        List<Push.Record> records = new ArrayList<>();
        try {
            CodedInputStream in = CodedInputStream.newInstance(body);
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case 1 -> producer = in.readStringRequireUtf8();
                    case 2 -> sequence = in.readInt64();
                    case 3 -> records.add(protoRecord(in.readBytes().newCodedInput(), "records[" + records.size()
                            + "]", receivedAtMs));
                    default -> in.skipField(tag);
                }
            }
        } catch (IOException e) {
            throw new MalformedPushException("body", "is not a Protobuf PushRequest (" + e.getMessage() + ")");
        }
        return new Push(producer, sequence, records);
    }

    private static Push.Record protoRecord(CodedInputStream in, String at, long receivedAtMs) throws IOException {
        byte[] k = null;
        byte[] v = null;
        long ts = receivedAtMs;
        try {
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case 1 -> k = in.readByteArray();
                    case 2 -> v = in.readByteArray();
                    case 3 -> ts = in.readInt64();
                    default -> in.skipField(tag);
                }
            }
        } catch (IOException e) {
            throw new MalformedPushException(at, "is not a Protobuf PushRecord (" + e.getMessage() + ")");
        }
        return new Push.Record(k, v, ts);
    }

    private static Push avro(byte[] body, long receivedAtMs) {
        GenericRecord request;
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(body, null);
        try {
            request = new GenericDatumReader<GenericRecord>(AVRO_SCHEMA).read(null, decoder);
            if (!decoder.isEnd()) {
                throw new MalformedPushException("body", "has bytes left over after the Avro PushRequest");
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof MalformedPushException m) {
                throw m;
            }
            throw new MalformedPushException("body", "is not an Avro PushRequest of the schema in SPEC "
                    + "\"Direct ingest\"");
        }
        List<Push.Record> records = new ArrayList<>();
        @SuppressWarnings("unchecked")
        GenericData.Array<GenericRecord> list = (GenericData.Array<GenericRecord>) request.get("records");
        for (GenericRecord r : list) {
            Object ts = r.get("timestamp_ms");
            records.add(new Push.Record(bytes(r.get("key")), bytes(r.get("value")),
                    ts == null ? receivedAtMs : (Long) ts));
        }
        return new Push(request.get("producer_id").toString(), (Long) request.get("sequence"), records);
    }

    private static byte[] bytes(Object b) {
        if (b == null) {
            return null;
        }
        java.nio.ByteBuffer buffer = (java.nio.ByteBuffer) b;
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }
}
