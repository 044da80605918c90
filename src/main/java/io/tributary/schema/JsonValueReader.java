package io.tributary.schema;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;

/**
 * One node of the precompiled plan a {@link JsonDecoder} streams a JSON document through: it reads the value whose
 * first token the parser is on and returns it in the column's Avro data model. Strict on purpose: a value of the
 * wrong JSON type is a mismatch, and a mismatch anywhere makes the whole side NULL (SPEC 4.1).
 */
abstract class JsonValueReader {
    /** Whether an explicit JSON null is allowed (the schema's type list names "null"). */
    private final boolean nullable;
    /** Column path, for decode-failure messages; never the value itself, which may be personal data. */
    final String path;

    JsonValueReader(boolean nullable, String path) {
        this.nullable = nullable;
        this.path = path;
    }

    final Object read(JsonParser p, JsonToken t, byte[] source) throws IOException, DecodeException {
        if (t == JsonToken.VALUE_NULL) {
            if (nullable) {
                return null;
            }
            throw mismatch("a value", t);
        }
        return readValue(p, t, source);
    }

    abstract Object readValue(JsonParser p, JsonToken t, byte[] source) throws IOException, DecodeException;

    /**
     * The fast path's {@link #read}: the value at the cursor, exactly as {@link #read} would give it, or a bail for
     * anything else (a mismatch included, so that Jackson's reading reports it).
     */
    final Object fast(AsciiJson in) throws AsciiJson.Bail {
        int c = in.peek();
        if (c == 'n') {
            in.literal(AsciiJson.NULL);
            if (nullable) {
                return null;
            }
            throw AsciiJson.BAIL;
        }
        return fastValue(in, c);
    }

    /** {@link #fast} for a value that is not null, whose first byte is {@code c}; bails unless overridden. */
    Object fastValue(AsciiJson in, int c) throws AsciiJson.Bail {
        throw AsciiJson.BAIL;
    }

    final DecodeException mismatch(String expected, JsonToken got) {
        return new DecodeException((path.isEmpty() ? "the JSON document" : "`" + path + "`") + ": expected "
                + expected + ", found " + describe(got));
    }

    private static String describe(JsonToken t) {
        return switch (t) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT -> "an integer";
            case VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> t.name();
        };
    }

    /** Another reader that also accepts null. */
    static final class OrNull extends JsonValueReader {
        private final JsonValueReader inner;

        OrNull(JsonValueReader inner) {
            super(true, inner.path);
            this.inner = inner;
        }

        @Override
        Object readValue(JsonParser p, JsonToken t, byte[] source) throws IOException, DecodeException {
            return inner.readValue(p, t, source);
        }

        @Override
        Object fastValue(AsciiJson in, int c) throws AsciiJson.Bail {
            return inner.fastValue(in, c);
        }
    }

    static final class Text extends JsonValueReader {
        Text(boolean nullable, String path) {
            super(nullable, path);
        }

        @Override
        Object readValue(JsonParser p, JsonToken t, byte[] source) throws IOException, DecodeException {
            if (t != JsonToken.VALUE_STRING) {
                throw mismatch("a string", t);
            }
            return p.getText();
        }

        @Override
        Object fastValue(AsciiJson in, int c) throws AsciiJson.Bail {
            if (c != '"') {
                throw AsciiJson.BAIL;
            }
            in.string();
            return in.text();
        }
    }

    /** RFC 3339 date-time to microseconds since the epoch, UTC. */
    static final class Timestamp extends JsonValueReader {
        Timestamp(boolean nullable, String path) {
            super(nullable, path);
        }

        @Override
        Object readValue(JsonParser p, JsonToken t, byte[] source) throws IOException, DecodeException {
            if (t != JsonToken.VALUE_STRING) {
                throw mismatch("a date-time string", t);
            }
            try {
                return Rfc3339.toMicros(p.getText());
            } catch (DateTimeException e) {
                throw new DecodeException("`" + path + "`: not an RFC 3339 date-time");
            }
        }

        @Override
        Object fastValue(AsciiJson in, int c) throws AsciiJson.Bail {
            if (c != '"') {
                throw AsciiJson.BAIL;
            }
            in.string();
            try {
                return Rfc3339.toMicros(in.text());
            } catch (DateTimeException e) {
                throw AsciiJson.BAIL;
            }
        }
    }

    /** ISO date to days since the epoch. */
    static final class Date extends JsonValueReader {
        Date(boolean nullable, String path) {
            super(nullable, path);
        }

        @Override
        Object readValue(JsonParser p, JsonToken t, byte[] source) throws IOException, DecodeException {
            if (t != JsonToken.VALUE_STRING) {
                throw mismatch("a date string", t);
            }
            try {
                return Math.toIntExact(LocalDate.parse(p.getText()).toEpochDay());
            } catch (DateTimeException | ArithmeticException e) {
                throw new DecodeException("`" + path + "`: not an ISO 8601 date (yyyy-mm-dd)");
            }
        }

        @Override
        Object fastValue(AsciiJson in, int c) throws AsciiJson.Bail {
            if (c != '"') {
                throw AsciiJson.BAIL;
            }
            in.string();
            try {
                return Math.toIntExact(LocalDate.parse(in.text()).toEpochDay());
            } catch (DateTimeException | ArithmeticException e) {
                throw AsciiJson.BAIL;
            }
        }
    }

    static final class Number extends JsonValueReader {
        Number(boolean nullable, String path) {
            super(nullable, path);
        }

        @Override
        Object readValue(JsonParser p, JsonToken t, byte[] source) throws IOException, DecodeException {
            if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
                throw mismatch("a number", t);
            }
            return p.getDoubleValue();
        }

        @Override
        Object fastValue(AsciiJson in, int c) throws AsciiJson.Bail {
            if (c != '-' && (c < '0' || c > '9')) {
                throw AsciiJson.BAIL;
            }
            in.number();
            return in.integral ? (double) in.longValue : in.doubleValue;
        }
    }

    /** JSON Schema counts 1.0 as an integer, so whole floats are accepted; beyond the long range is a mismatch. */
    static final class Integer extends JsonValueReader {
        Integer(boolean nullable, String path) {
            super(nullable, path);
        }

        @Override
        Object readValue(JsonParser p, JsonToken t, byte[] source) throws IOException, DecodeException {
            if (t == JsonToken.VALUE_NUMBER_INT) {
                JsonParser.NumberType type = p.getNumberType();
                if (type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG) {
                    return p.getLongValue();
                }
                throw new DecodeException("`" + path + "`: integer out of the 64-bit range");
            }
            if (t == JsonToken.VALUE_NUMBER_FLOAT) {
                double d = p.getDoubleValue();
                if (d == Math.rint(d) && d >= -0x1p63 && d < 0x1p63) {
                    return (long) d;
                }
            }
            throw mismatch("an integer", t);
        }

        @Override
        Object fastValue(AsciiJson in, int c) throws AsciiJson.Bail {
            if (c != '-' && (c < '0' || c > '9')) {
                throw AsciiJson.BAIL;
            }
            in.number();
            if (in.integral) {
                return in.longValue;
            }
            double d = in.doubleValue;
            if (d == Math.rint(d) && d >= -0x1p63 && d < 0x1p63) {
                return (long) d;
            }
            throw AsciiJson.BAIL;
        }
    }

    static final class Bool extends JsonValueReader {
        Bool(boolean nullable, String path) {
            super(nullable, path);
        }

        @Override
        Object readValue(JsonParser p, JsonToken t, byte[] source) throws IOException, DecodeException {
            if (t == JsonToken.VALUE_TRUE) {
                return Boolean.TRUE;
            }
            if (t == JsonToken.VALUE_FALSE) {
                return Boolean.FALSE;
            }
            throw mismatch("a boolean", t);
        }

        @Override
        Object fastValue(AsciiJson in, int c) throws AsciiJson.Bail {
            if (c == 't') {
                in.literal(AsciiJson.TRUE);
                return Boolean.TRUE;
            }
            if (c == 'f') {
                in.literal(AsciiJson.FALSE);
                return Boolean.FALSE;
            }
            throw AsciiJson.BAIL;
        }
    }

    /**
     * Any value, kept as its JSON text exactly as it appears in the input (sliced from the source bytes, so nothing is
     * re-serialised). A JSON null stays NULL.
     */
    static final class Raw extends JsonValueReader {
        Raw(boolean nullable, String path) {
            super(nullable, path);
        }

        @Override
        Object readValue(JsonParser p, JsonToken t, byte[] source) throws IOException {
            int start = (int) p.currentTokenLocation().getByteOffset();
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                p.skipChildren();
            } else {
                // String values are parsed lazily; finish the token so that the location is past its end.
                p.finishToken();
            }
            int end = (int) p.currentLocation().getByteOffset();
            return new String(source, start, end - start, java.nio.charset.StandardCharsets.UTF_8);
        }

        /** Objects, arrays and strings only: where Jackson's location ends after a bare scalar is its own affair. */
        @Override
        Object fastValue(AsciiJson in, int c) throws AsciiJson.Bail {
            if (c != '{' && c != '[' && c != '"') {
                throw AsciiJson.BAIL;
            }
            int start = in.pos;
            in.skipValue();
            return new String(in.bytes, start, in.pos - start, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    static final class Array extends JsonValueReader {
        private final JsonValueReader items;

        Array(boolean nullable, String path, JsonValueReader items) {
            super(nullable, path);
            this.items = items;
        }

        @Override
        Object readValue(JsonParser p, JsonToken t, byte[] source) throws IOException, DecodeException {
            if (t != JsonToken.START_ARRAY) {
                throw mismatch("an array", t);
            }
            List<Object> list = new ArrayList<>();
            JsonToken item;
            while ((item = p.nextToken()) != JsonToken.END_ARRAY) {
                list.add(items.read(p, item, source));
            }
            return list;
        }

        @Override
        Object fastValue(AsciiJson in, int c) throws AsciiJson.Bail {
            if (c != '[') {
                throw AsciiJson.BAIL;
            }
            in.enter();
            List<Object> list = new ArrayList<>();
            if (in.peek() == ']') {
                in.leave();
                return list;
            }
            while (true) {
                list.add(items.fast(in));
                int next = in.peek();
                if (next == ',') {
                    in.pos++;
                } else if (next == ']') {
                    in.leave();
                    return list;
                } else {
                    throw AsciiJson.BAIL;
                }
            }
        }
    }

    /** An object with declared properties: fields found by name, unknown ones skipped, missing ones left NULL. */
    static final class Struct extends JsonValueReader {
        private final Schema schema;
        private final Map<String, Slot> slots;
        /** The fast path's lookup: the names' UTF-8 bytes in an open-addressed table by {@link #hash}. */
        private final byte[][] fastNames;
        private final Slot[] fastSlots;

        private record Slot(int position, JsonValueReader reader) {}

        Struct(boolean nullable, String path, Schema schema, List<String> jsonNames, List<JsonValueReader> readers) {
            super(nullable, path);
            this.schema = schema;
            this.slots = new HashMap<>(jsonNames.size() * 2);
            for (int i = 0; i < jsonNames.size(); i++) {
                slots.put(jsonNames.get(i), new Slot(i, readers.get(i)));
            }
            int size = java.lang.Integer.highestOneBit(Math.max(2, jsonNames.size()) * 4 - 1);
            fastNames = new byte[size][];
            fastSlots = new Slot[size];
            for (Map.Entry<String, Slot> e : slots.entrySet()) {
                byte[] name = e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                int h = hash(name, 0, name.length) & (size - 1);
                while (fastNames[h] != null) {
                    h = (h + 1) & (size - 1);
                }
                fastNames[h] = name;
                fastSlots[h] = e.getValue();
            }
        }

        private static int hash(byte[] b, int from, int to) {
            int h = 0;
            for (int i = from; i < to; i++) {
                h = 31 * h + b[i];
            }
            return h ^ (h >>> 16);
        }

        private Slot fastSlot(AsciiJson in) {
            byte[] b = in.bytes;
            int mask = fastNames.length - 1;
            int h = hash(b, in.start, in.end) & mask;
            while (true) {
                byte[] name = fastNames[h];
                if (name == null) {
                    return null;
                }
                if (java.util.Arrays.equals(name, 0, name.length, b, in.start, in.end)) {
                    return fastSlots[h];
                }
                h = (h + 1) & mask;
            }
        }

        @Override
        Object fastValue(AsciiJson in, int c) throws AsciiJson.Bail {
            if (c != '{') {
                throw AsciiJson.BAIL;
            }
            in.enter();
            GenericData.Record record = new GenericData.Record(schema);
            if (in.peek() == '}') {
                in.leave();
                return record;
            }
            while (true) {
                if (in.peek() != '"') {
                    throw AsciiJson.BAIL;
                }
                in.string();
                in.nameLength();
                Slot slot = fastSlot(in);
                in.expect(':');
                if (slot == null) {
                    in.skipValue();
                } else {
                    record.put(slot.position, slot.reader.fast(in));
                }
                int next = in.peek();
                if (next == ',') {
                    in.pos++;
                } else if (next == '}') {
                    in.leave();
                    return record;
                } else {
                    throw AsciiJson.BAIL;
                }
            }
        }

        @Override
        Object readValue(JsonParser p, JsonToken t, byte[] source) throws IOException, DecodeException {
            if (t != JsonToken.START_OBJECT) {
                throw mismatch("an object", t);
            }
            GenericData.Record record = new GenericData.Record(schema);
            String name;
            while ((name = p.nextFieldName()) != null) {
                JsonToken value = p.nextToken();
                Slot slot = slots.get(name);
                if (slot == null) {
                    p.skipChildren();
                } else {
                    record.put(slot.position, slot.reader.read(p, value, source));
                }
            }
            return record;
        }
    }
}
