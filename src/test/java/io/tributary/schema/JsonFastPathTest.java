package io.tributary.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The JSON fast path ({@link AsciiJson}) against Jackson's reading, which defines values and failures: on documents a
 * producer may send (any field order, repeated and unknown fields, nulls, whitespace, numbers in every JSON form and
 * some that are not JSON, escapes, non-ASCII, deep nesting) and on corrupted ones, both decoders give the same value
 * or fail with the same message. And the fast path does take most plain documents, or the comparison would prove
 * nothing.
 */
class JsonFastPathTest {
    private static final String SCHEMA = """
        {"type": "object", "properties": {
          "id": {"type": "integer"}, "user": {"type": "string"}, "amount": {"type": "number"},
          "ok": {"type": "boolean"}, "at": {"type": "string", "format": "date-time"},
          "day": {"type": "string", "format": "date"}, "note": {"type": ["string", "null"]},
          "n": {"type": ["integer", "null"]}, "x": {"type": ["number", "null"]},
          "tags": {"type": "array", "items": {"type": "string"}},
          "nums": {"type": ["array", "null"], "items": {"type": ["number", "null"]}},
          "sub": {"type": "object", "properties": {"flag": {"type": "boolean"}, "w": {"type": "number"},
             "inner": {"type": "object", "properties": {"k": {"type": "integer"}, "s": {"type": "string"}}}}},
          "subs": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}}}},
          "extra": {}, "é": {"type": "string"}
        }}""";

    private static final String[] FIELDS = {"id", "user", "amount", "ok", "at", "day", "note", "n", "x", "tags",
        "nums", "sub", "subs", "extra", "unknown", "deep", "é"};

    private static final String[] NUMBERS = {"0", "-0", "1", "-1", "7", "42", "1.0", "-1.0", "0.5", "10.05", "0.001",
        "1e3", "1E3", "1e+3", "1e-3", "-2.5e-7", "123456789012345678", "1234567890123456789", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "1e400", "-1e400", "4.9e-324", "1e-400", "9007199254740993",
        "9007199254740993.0", "0.1", "0.30000000000000004", "123.456e5", "1.7976931348623157e308", "01", "-", "1.",
        ".5", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "1.5e22", "1.5e23", "3e22", "00", "-01", "1.e5", "1ee5",
        "2.0e0", "9.999999999999999e22", "12345678901234567.5", "0.000000000000000000001", "1_000"};

    private static final String[] STRINGS = {"\"\"", "\"a\"", "\"user-123456\"", "\"with space\"", "\"a\\\"b\"",
        "\"tab\\tx\"", "\"\\u00e9\"", "\"é\"", "\"\\ud83d\\ude00\"", "\"\\ud800\"", "\"ctl\u0001\"", "\"2024-05-06\"",
        "\"2024-05-06T07:08:09.123456+02:00\"", "\"2024-05-06T07:08:09Z\"", "\"2024-13-06\"", "\"not a date\"",
        "\"2024-05-06T25:08:09Z\"", "\"unterminated", "\"a/b\"", "\"~{}[]:,\""};

    private static final String[] LITERALS = {"true", "false", "null", "tru", "nul", "truex", "True", "NULL"};

    private final Decoder jackson;
    private final JsonDecoder fast;

    JsonFastPathTest() {
        JsonSchemaCompiler.Compiled compiled = JsonSchemaCompiler.compile(SCHEMA, "f", new RecordNames("r"));
        fast = (JsonDecoder) compiled.newDecoder();
        System.setProperty("tributary.ingest.direct-write", "false");
        try {
            jackson = compiled.newDecoder();
        } finally {
            System.clearProperty("tributary.ingest.direct-write");
        }
    }

    @Test
    void theFastPathGivesJacksonsValuesAndFailures() {
        Random random = new Random(17);
        int plainFast = 0;
        int plain = 0;
        int corruptedFast = 0;
        int failures = 0;
        for (int i = 0; i < 40_000; i++) {
            boolean plainOnly = i % 4 == 0;
            String doc = object(random, 0, plainOnly);
            byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
            boolean corrupted = !plainOnly && random.nextInt(3) == 0;
            if (corrupted) {
                bytes = corrupt(bytes, random);
            }
            Outcome expected = outcome(jackson, bytes);
            Outcome actual = outcome(fast, bytes);
            assertThat(actual).as("document %s", new String(bytes, StandardCharsets.UTF_8)).isEqualTo(expected);
            if (expected.error != null) {
                failures++;
            }
            boolean tookFast = fast.fast(bytes) != JsonDecoder.NOT_FAST;
            if (plainOnly) {
                plain++;
                plainFast += tookFast ? 1 : 0;
            } else if (corrupted && tookFast) {
                corruptedFast++;
            }
        }
        assertThat(plainFast).as("plain documents read by the fast path").isGreaterThan(plain * 9 / 10);
        assertThat(corruptedFast).as("corrupted documents still read by the fast path").isGreaterThan(100);
        assertThat(failures).as("documents that fail to decode").isGreaterThan(1000);
    }

    @Test
    void edgeDocumentsAgree() {
        String[] docs = {"", " ", "{}", "[]", "null", "{} {}", "{}x", "{\"id\":1,}", "{,}", "{\"id\" 1}", "{\"id\":1",
            "{\"id\":1}}", "\uFEFF{\"id\":1}", "{\"id\":1}\n", " {\"id\":1} ", "{\"id\":1}/", "{\"id\":-0}",
            "{\"x\":-0}", "{\"x\":-0.0}", "{\"amount\":-0}", "{\"id\":1.5}", "{\"id\":2.0}", "{\"id\":1e2}",
            "{\"id\":9.3e18}", "{\"id\":-9.223372036854775808e18}", "{\"tags\":[]}", "{\"tags\":[,]}",
            "{\"tags\":[\"a\",]}", "{\"tags\":[\"a\" \"b\"]}", "{\"extra\":1}", "{\"extra\":\"s\"}",
            "{\"extra\":{\"a\": [1, 2 ,{}]} }", "{\"extra\":[ ]}", "{\"extra\":null}", "{\"extra\":true}",
            "{\"note\":null,\"note\":\"b\"}", "{\"id\":1,\"id\":null}", "{\"id\":null}", "{\"sub\":null}",
            "{\"sub\":{\"inner\":{\"k\":3,\"s\":\"z\"},\"inner\":{}}}", "{\"é\":\"v\"}", "{\"\\u00e9\":\"v\"}",
            "{\"id\":1}" + " ".repeat(3), "{\"unknown\":" + "[".repeat(200) + "]".repeat(200) + "}",
            "{\"unknown\":" + "[".repeat(2000) + "]".repeat(2000) + "}", "{\"id\":1\t,\r\n\"ok\":true}",
            "{\"" + "n".repeat(300) + "\":1}", "{\"id\":" + "1".repeat(300) + "}", "{\"subs\":[{\"a\":1},{}, null]}",
            "{\"nums\":[1,null,2.5,-0]}", "{\"at\":\"2024-05-06T07:08:09.123456789Z\"}", "{\"day\":\"+10000-01-01\"}"};
        for (String doc : docs) {
            byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
            assertThat(outcome(fast, bytes)).as("document %s", doc).isEqualTo(outcome(jackson, bytes));
        }
    }

    private record Outcome(Object value, String error) {}

    private static Outcome outcome(Decoder decoder, byte[] bytes) {
        try {
            Object value = decoder.decode(bytes);
            // toString shows -0.0 against 0.0 and the Java types (1 against 1.0) that equals may not.
            return new Outcome(value == null ? null : value.toString() + "|" + types(value), null);
        } catch (DecodeException e) {
            return new Outcome(null, e.getMessage());
        }
    }

    private static String types(Object value) {
        if (value instanceof org.apache.avro.generic.IndexedRecord r) {
            StringBuilder b = new StringBuilder("{");
            for (int i = 0; i < r.getSchema().getFields().size(); i++) {
                b.append(types(r.get(i))).append(',');
            }
            return b.append('}').toString();
        }
        if (value instanceof java.util.List<?> list) {
            StringBuilder b = new StringBuilder("[");
            for (Object o : list) {
                b.append(types(o)).append(',');
            }
            return b.append(']').toString();
        }
        return value == null ? "null" : value.getClass().getSimpleName() + ":" + value;
    }

    private static String object(Random random, int depth, boolean plain) {
        StringBuilder b = new StringBuilder(space(random, plain)).append('{');
        int n = random.nextInt(plain ? 8 : 10);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                b.append(',');
            }
            // A non-ASCII name is for Jackson, so plain documents leave the last field out.
            String field = FIELDS[random.nextInt(FIELDS.length - (plain ? 1 : 0))];
            b.append(space(random, plain)).append('"').append(field).append('"').append(space(random, plain))
                    .append(':').append(space(random, plain)).append(value(field, random, depth, plain))
                    .append(space(random, plain));
        }
        return b.append('}').toString();
    }

    /** A value for the field, mostly of its type when plain, of any kind otherwise. */
    private static String value(String field, Random random, int depth, boolean plain) {
        if (!plain && random.nextInt(6) == 0) {
            return any(random, depth);
        }
        boolean nullable = field.equals("note") || field.equals("n") || field.equals("x") || field.equals("nums");
        if (random.nextInt(12) == 0 && (nullable || !plain)) {
            return "null";
        }
        return switch (field) {
            case "id", "n" -> plain ? Long.toString(random.nextLong() >> random.nextInt(64)) : number(random);
            case "amount", "x" -> plain ? decimal(random) : number(random);
            case "ok" -> random.nextBoolean() ? "true" : "false";
            case "at" -> plain ? "\"2024-05-06T07:08:" + (10 + random.nextInt(50)) + "." + random.nextInt(1000)
                    + "Z\"" : STRINGS[random.nextInt(STRINGS.length)];
            case "day" -> plain ? "\"2024-0" + (1 + random.nextInt(9)) + "-1" + random.nextInt(10) + "\""
                    : STRINGS[random.nextInt(STRINGS.length)];
            case "user", "note", "é" -> plain ? "\"user-" + random.nextInt(1_000_000) + "\""
                    : STRINGS[random.nextInt(STRINGS.length)];
            case "tags" -> array(random, () -> plain ? "\"t" + random.nextInt(9) + "\""
                    : STRINGS[random.nextInt(STRINGS.length)]);
            case "nums" -> array(random, () -> plain ? decimal(random) : random.nextInt(5) == 0 ? "null"
                    : number(random));
            case "sub" -> depth > 3 ? "{}" : "{\"flag\":" + (random.nextBoolean() ? "true" : "false") + ",\"w\":"
                    + decimal(random) + ",\"inner\":{\"k\":" + random.nextInt(100) + ",\"s\":\"q\"}"
                    + (random.nextBoolean() ? "" : ",\"zz\":" + (plain ? "[1,{\"q\":\"r\"}]" : any(random, depth + 1)))
                    + "}";
            case "subs" -> depth > 3 ? "[]" : array(random, () -> random.nextBoolean() ? object(random, depth + 1,
                    plain) : "{\"a\":" + random.nextInt(10) + "}");
            case "deep" -> depth > 3 ? "0" : "{\"deep\":" + object(random, depth + 1, plain) + "}";
            default -> plain ? "{\"q\": [1, \"s\", true, null, -2.5e3, {}]}" : any(random, depth);
        };
    }

    private static String any(Random random, int depth) {
        return switch (random.nextInt(depth > 3 ? 3 : 5)) {
            case 0 -> number(random);
            case 1 -> STRINGS[random.nextInt(STRINGS.length)];
            case 2 -> LITERALS[random.nextInt(LITERALS.length)];
            case 3 -> array(random, () -> any(random, depth + 1));
            default -> object(random, depth + 1, false);
        };
    }

    private static String array(Random random, java.util.function.Supplier<String> item) {
        StringBuilder b = new StringBuilder("[");
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
            b.append(i > 0 ? "," : "").append(item.get());
        }
        return b.append(']').toString();
    }

    private static String number(Random random) {
        return switch (random.nextInt(3)) {
            case 0 -> NUMBERS[random.nextInt(NUMBERS.length)];
            case 1 -> decimal(random);
            default -> Double.toString(random.nextGaussian() * Math.pow(10, random.nextInt(40) - 20));
        };
    }

    private static String decimal(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> Integer.toString(random.nextInt(2000) - 1000);
            case 1 -> Double.toString(random.nextInt(1_000_000) / 100.0);
            case 2 -> Double.toString(random.nextDouble());
            default -> (random.nextBoolean() ? "-" : "") + random.nextInt(1000) + "." + random.nextInt(1000);
        };
    }

    private static String space(Random random, boolean plain) {
        return switch (random.nextInt(plain ? 6 : 8)) {
            case 0 -> " ";
            case 1 -> "\n  ";
            case 6 -> "\t\r\n";
            case 7 -> "\u00a0";
            default -> "";
        };
    }

    private static byte[] corrupt(byte[] bytes, Random random) {
        byte[] out = bytes.clone();
        switch (random.nextInt(4)) {
            case 0 -> {
                return java.util.Arrays.copyOf(out, random.nextInt(out.length + 1));
            }
            case 1 -> out[random.nextInt(out.length)] = (byte) random.nextInt(256);
            case 2 -> {
                byte[] junk = "{}[],:\"\\ 0123456789eE.+-tfnul".getBytes(StandardCharsets.US_ASCII);
                out[random.nextInt(out.length)] = junk[random.nextInt(junk.length)];
            }
            default -> {
                int at = random.nextInt(out.length);
                byte[] longer = new byte[out.length + 1];
                System.arraycopy(out, 0, longer, 0, at);
                longer[at] = (byte) "{}[],:\" 0-.e".charAt(random.nextInt(12));
                System.arraycopy(out, at, longer, at + 1, out.length - at);
                return longer;
            }
        }
        return out;
    }
}
