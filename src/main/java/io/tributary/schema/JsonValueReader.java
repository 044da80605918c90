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
    }

    /** An object with declared properties: fields found by name, unknown ones skipped, missing ones left NULL. */
    static final class Struct extends JsonValueReader {
        private final Schema schema;
        private final Map<String, Slot> slots;

        private record Slot(int position, JsonValueReader reader) {}

        Struct(boolean nullable, String path, Schema schema, List<String> jsonNames, List<JsonValueReader> readers) {
            super(nullable, path);
            this.schema = schema;
            this.slots = new HashMap<>(jsonNames.size() * 2);
            for (int i = 0; i < jsonNames.size(); i++) {
                slots.put(jsonNames.get(i), new Slot(i, readers.get(i)));
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
