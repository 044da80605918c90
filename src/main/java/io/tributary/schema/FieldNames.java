package io.tributary.schema;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Column names of one struct. Avro (and so parquet-avro) only accepts names of the form [A-Za-z_][A-Za-z0-9_]*,
 * while JSON property names may be anything: every other character becomes {@code _} and a leading digit gets a
 * {@code _} in front ({@code user-id} -> {@code user_id}, {@code 1st} -> {@code _1st}). Decoding still matches the
 * original names. Delta compares column names case-insensitively, so two names that differ only in case (after the
 * mapping) are rejected rather than silently renamed.
 */
final class FieldNames {
    private final Map<String, String> byFolded = new HashMap<>();
    private final String field;
    private final String structPath;

    /**
     * @param field      request field for errors
     * @param structPath column path of the struct, for errors
     */
    FieldNames(String field, String structPath) {
        this.field = field;
        this.structPath = structPath;
    }

    /** @return the column name for {@code original}; throws if it collides with an earlier one */
    String add(String original, String what) {
        String column = columnName(original);
        String previous = byFolded.putIfAbsent(column.toLowerCase(Locale.ROOT), original);
        if (previous != null) {
            String where = structPath.isEmpty() ? "the top level" : "`" + structPath + "`";
            throw new InvalidSchemaException(field, what + " `" + previous + "` and `" + original + "` at " + where
                    + " both become the column `" + column + "` (column names are case-insensitive and only letters,"
                    + " digits and _ are kept); rename one of them");
        }
        return column;
    }

    static String columnName(String original) {
        if (isAvroName(original)) {
            return original;
        }
        StringBuilder b = new StringBuilder(original.length() + 1);
        if (original.isEmpty() || !isAsciiLetterOrUnderscore(original.charAt(0))) {
            b.append('_');
        }
        for (int i = 0; i < original.length(); i++) {
            char c = original.charAt(i);
            b.append(isAsciiLetterOrUnderscore(c) || (c >= '0' && c <= '9') ? c : '_');
        }
        return b.toString();
    }

    static boolean isAvroName(String s) {
        if (s.isEmpty() || !isAsciiLetterOrUnderscore(s.charAt(0))) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!isAsciiLetterOrUnderscore(c) && (c < '0' || c > '9')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAsciiLetterOrUnderscore(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }
}
