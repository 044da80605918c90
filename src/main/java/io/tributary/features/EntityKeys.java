package io.tributary.features;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * An entity's key as one text, the column every online table of a view is keyed by: the entity values as a JSON array
 * ({@code ["u1"]}, {@code [42,"eu"]}), integers written the same whatever their Java type, so a lookup's key (parsed
 * from JSON) and a record's (read from Parquet) meet.
 */
public final class EntityKeys {
    private EntityKeys() {}

    /** The key of a record, or null when an entity column is null. */
    static String of(Map<String, Object> row, List<List<String>> paths) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < paths.size(); i++) {
            Object v = extract(row, paths.get(i));
            if (v == null) {
                return null;
            }
            append(b.append(i == 0 ? "" : ","), v);
        }
        return b.append(']').toString();
    }

    /** The key of a lookup's values (in entity column order); {@link IllegalArgumentException} for a wrong type. */
    public static String of(List<Object> values) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < values.size(); i++) {
            append(b.append(i == 0 ? "" : ","), values.get(i));
        }
        return b.append(']').toString();
    }

    private static void append(StringBuilder b, Object v) {
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
                || v instanceof java.math.BigInteger) {
            b.append(((Number) v).toString());
        } else if (v instanceof BigDecimal d) {
            b.append(d.toBigIntegerExact());
        } else if (v instanceof String s) {
            b.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '"' || c == '\\') {
                    b.append('\\').append(c);
                } else if (c < 0x20) {
                    b.append(String.format("\\u%04x", (int) c));
                } else {
                    b.append(c);
                }
            }
            b.append('"');
        } else {
            throw new IllegalArgumentException("an entity value must be a string or an integer, got "
                    + (v == null ? "null" : v.getClass().getSimpleName()));
        }
    }

    /** The value at a path of nested structs (maps); null when a struct on the way is null. */
    @SuppressWarnings("unchecked")
    static Object extract(Map<String, Object> row, List<String> path) {
        Object v = row;
        for (String p : path) {
            if (!(v instanceof Map)) {
                return null;
            }
            v = ((Map<String, Object>) v).get(p);
        }
        return v;
    }

    /** The values of a key text again: strings and integers (as longs), in entity column order. */
    static List<Object> values(String key) {
        List<Object> out = new java.util.ArrayList<>();
        int i = 1;
        while (i < key.length() - 1) {
            char c = key.charAt(i);
            if (c == ',') {
                i++;
            } else if (c == '"') {
                StringBuilder b = new StringBuilder();
                i++;
                while (key.charAt(i) != '"') {
                    char ch = key.charAt(i);
                    if (ch == '\\') {
                        char next = key.charAt(i + 1);
                        if (next == 'u') {
                            b.append((char) Integer.parseInt(key.substring(i + 2, i + 6), 16));
                            i += 6;
                        } else {
                            b.append(next);
                            i += 2;
                        }
                    } else {
                        b.append(ch);
                        i++;
                    }
                }
                out.add(b.toString());
                i++;
            } else {
                int end = i;
                while (end < key.length() - 1 && key.charAt(end) != ',') {
                    end++;
                }
                out.add(Long.parseLong(key.substring(i, end)));
                i = end;
            }
        }
        return out;
    }
}
