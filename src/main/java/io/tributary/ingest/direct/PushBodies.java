package io.tributary.ingest.direct;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.tributary.schema.SchemaSource;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
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
    private static final JsonFactory JSON = new JsonFactory();
    private static final Set<String> TOP = Set.of("producer_id", "sequence", "records");
    private static final Set<String> RECORD = Set.of("key", "value", "key_base64", "value_base64", "timestamp");
    private static final String SEQUENCE_REQUIRED = "is required and must be an integer: the producer's batch number, "
            + "0 for its first batch";
    private static final String RECORDS_REQUIRED = "is required: a JSON array of {\"key\", \"value\", \"timestamp\"} "
            + "objects";

    private final SideBytes key;
    private final SideBytes value;
    private final PushValidation validation;

    /**
     * The sides of one stream: how their JSON values become bytes, and whether a side its schema cannot decode is
     * refused ({@code rescueUndecodable} false: {@link PushValidation}) or taken as from Kafka.
     */
    public PushBodies(SchemaSource key, SchemaSource value, boolean rescueUndecodable) {
        this.key = SideBytes.of(key);
        this.value = SideBytes.of(value);
        this.validation = PushValidation.of(key, value, rescueUndecodable);
    }

    /**
     * @param contentType the body's media type without parameters: JSON for none, a JSON type, {@code text/plain} or
     *     curl's default {@code application/x-www-form-urlencoded} (the rest of the API reads those as JSON too)
     * @param receivedAtMs the time of records that carry none
     */
    public Push read(String contentType, byte[] body, long receivedAtMs) {
        String type = contentType == null ? "application/json" : contentType.toLowerCase(java.util.Locale.ROOT);
        Push push;
        if (type.equals(PROTOBUF) || type.equals("application/protobuf")) {
            push = protobuf(body, receivedAtMs);
        } else if (type.equals(AVRO) || type.equals("application/avro")) {
            push = avro(body, receivedAtMs);
        } else if (type.equals("application/json") || type.endsWith("+json") || type.equals("text/plain")
                || type.equals("application/x-www-form-urlencoded")) {
            push = json(body, receivedAtMs);
        } else {
            throw new MalformedPushException("Content-Type", "'" + contentType + "' is not a push body: use "
                    + "application/json, " + PROTOBUF + " or " + AVRO);
        }
        checked(push);
        validation.check(push);
        return push;
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

    /**
     * One streaming pass over the body: no tree of it is built, and a JSON Schema side's value is handed on as the
     * bytes it has in the body ({@link SideBytes#slice}), which is what a Kafka producer would have sent.
     */
    private Push json(byte[] body, long receivedAtMs) {
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new MalformedPushException("body", "must be a JSON object with producer_id, sequence and "
                        + "records");
            }
            String producer = null;
            Long sequence = null;
            List<Push.Record> records = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                switch (name) {
                    case "producer_id" -> {
                        if (t != JsonToken.VALUE_NULL && t != JsonToken.VALUE_STRING) {
                            throw new MalformedPushException("producer_id", "must be a string");
                        }
                        producer = t == JsonToken.VALUE_NULL ? null : p.getText();
                    }
                    case "sequence" -> {
                        if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                            throw new MalformedPushException("sequence", SEQUENCE_REQUIRED);
                        }
                        sequence = p.getLongValue();
                    }
                    case "records" -> {
                        if (t != JsonToken.START_ARRAY) {
                            throw new MalformedPushException("records", RECORDS_REQUIRED);
                        }
                        records = records(p, body, receivedAtMs);
                    }
                    default -> throw unknown(name, TOP, "");
                }
            }
            if (p.nextToken() != null) {
                throw new MalformedPushException("body", "is not valid JSON (at byte "
                        + p.currentTokenLocation().getByteOffset() + ": more after the push object)");
            }
            if (producer == null) {
                throw new MalformedPushException("producer_id", "is required: name the producer, e.g. \"p-1\"");
            }
            if (sequence == null) {
                throw new MalformedPushException("sequence", SEQUENCE_REQUIRED);
            }
            if (records == null) {
                throw new MalformedPushException("records", RECORDS_REQUIRED);
            }
            return new Push(producer, sequence, records);
        } catch (JsonProcessingException e) {
            throw new MalformedPushException("body", "is not valid JSON"
                    + (e.getLocation() == null ? "" : " (at byte " + e.getLocation().getByteOffset() + ")"));
        } catch (IOException e) {
            throw new MalformedPushException("body", "cannot be read");
        }
    }

    /** The records array, {@code p} at its start and left at its end. */
    private List<Push.Record> records(JsonParser p, byte[] body, long receivedAtMs) throws IOException {
        List<Push.Record> out = new ArrayList<>();
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
            String at = "records[" + out.size() + "]";
            if (t != JsonToken.START_OBJECT) {
                throw new MalformedPushException(at, "must be an object with key, value and timestamp");
            }
            out.add(record(p, body, at, receivedAtMs));
        }
        return out;
    }

    private Push.Record record(JsonParser p, byte[] body, String at, long receivedAtMs) throws IOException {
        Side k = new Side(at, "key");
        Side v = new Side(at, "value");
        long ts = receivedAtMs;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            switch (name) {
                case "key" -> k.json(t == JsonToken.VALUE_NULL ? null : key.of(p, body, k.field));
                case "value" -> v.json(t == JsonToken.VALUE_NULL ? null : value.of(p, body, v.field));
                case "key_base64" -> k.base64(p, t);
                case "value_base64" -> v.base64(p, t);
                case "timestamp" -> ts = timestamp(p, t, at + ".timestamp", receivedAtMs);
                default -> throw unknown(name, RECORD, at + ".");
            }
        }
        return new Push.Record(k.bytes(), v.bytes(), ts);
    }

    /** A record's key or value: given as JSON ({@code key}) or as base64 ({@code key_base64}), not both. */
    private static final class Side {
        private final String name;
        private final String field;
        private boolean json;
        private boolean base64;
        private byte[] bytes;

        Side(String record, String name) {
            this.name = name;
            this.field = record + "." + name;
        }

        void json(byte[] value) {
            json = true;
            bytes = value;
        }

        void base64(JsonParser p, JsonToken t) throws IOException {
            base64 = true;
            if (t == JsonToken.VALUE_NULL) {
                bytes = null;
                return;
            }
            if (t != JsonToken.VALUE_STRING) {
                throw new MalformedPushException(field + "_base64", "must be a base64 string");
            }
            try {
                bytes = Base64.getDecoder().decode(p.getText());
            } catch (IllegalArgumentException e) {
                throw new MalformedPushException(field + "_base64", "is not valid base64");
            }
        }

        byte[] bytes() {
            if (json && base64) {
                throw new MalformedPushException(field, "set " + name + " or " + name + "_base64, not both");
            }
            return bytes;
        }
    }

    private static long timestamp(JsonParser p, JsonToken t, String field, long receivedAtMs) throws IOException {
        if (t == JsonToken.VALUE_NULL) {
            return receivedAtMs;
        }
        if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
            return p.getLongValue();
        }
        if (t == JsonToken.VALUE_STRING) {
            try {
                return OffsetDateTime.parse(p.getText()).toInstant().toEpochMilli();
            } catch (DateTimeException e) {
                // fall through to the refusal
            }
        }
        throw new MalformedPushException(field, "must be an RFC 3339 time such as 2026-12-01T10:00:00Z or epoch "
                + "milliseconds");
    }

    private static MalformedPushException unknown(String name, Set<String> known, String at) {
        return new MalformedPushException(at + name, "is not a field of a push; use " + String.join(", ",
                new java.util.TreeSet<>(known)));
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
