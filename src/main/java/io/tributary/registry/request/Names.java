package io.tributary.registry.request;

import java.util.List;
import java.util.Locale;

/** SPEC 1 name rules: parts of letters, digits, '_' and '-', 1-255 characters, not starting with '-'; lower-cased. */
public final class Names {

    private Names() {}

    /** A three-part name, lower-cased: catalog, schema, name. */
    public static List<String> threePart(String field, String text) {
        if (text == null || text.isEmpty()) {
            throw ApiException.missing(field);
        }
        String[] parts = text.split("\\.", -1);
        if (parts.length != 3) {
            throw ApiException.invalid(field, "'" + shorten(text) + "' has " + parts.length
                    + " part(s): use a three-part name catalog.schema.name");
        }
        for (String p : parts) {
            checkPart(field, text, p);
        }
        return List.of(lower(parts[0]), lower(parts[1]), lower(parts[2]));
    }

    public static String fullName(String field, String text) {
        return String.join(".", threePart(field, text));
    }

    /**
     * The name prefix a list filters on: {@code catalog_name} and optionally {@code schema_name} ({@code "c."},
     * {@code "c.s."}), or "" for neither; a schema without its catalog is a 400.
     */
    public static String listPrefix(String catalog, String schema) {
        if (catalog == null) {
            if (schema != null) {
                throw ApiException.invalid("schema_name", "needs catalog_name too");
            }
            return "";
        }
        String prefix = onePart("catalog_name", catalog) + ".";
        return schema == null ? prefix : prefix + onePart("schema_name", schema) + ".";
    }

    /** A one-part name (connection, secret scope, secret key), lower-cased. */
    public static String onePart(String field, String text) {
        if (text == null || text.isEmpty()) {
            throw ApiException.missing(field);
        }
        checkPart(field, text, text);
        return lower(text);
    }

    /**
     * A principal as grants and ACLs name it: a token's user, a JWT {@code sub} or an IAM ARN, so any printable text
     * of 1-255 characters (the registry's column width), trimmed.
     */
    public static String principal(String field, String text) {
        if (text == null || text.isBlank()) {
            throw ApiException.missing(field);
        }
        String trimmed = text.trim();
        if (trimmed.length() > 255 || trimmed.chars().anyMatch(Character::isISOControl)) {
            throw ApiException.invalid(field, "'" + shorten(trimmed).replaceAll("\\p{Cntrl}", "?") + "' is not a "
                    + "principal: use 1-255 printable characters, e.g. a user name or an IAM ARN");
        }
        return trimmed;
    }

    private static void checkPart(String field, String whole, String part) {
        if (!isPart(part)) {
            throw ApiException.invalid(field, "'" + shorten(whole) + "' is not a valid name: each part must be "
                    + "1-255 letters, digits, '_' or '-', starting with a letter, digit or '_'");
        }
    }

    /** [A-Za-z0-9_][A-Za-z0-9_-]{0,254}, by hand: it runs for every name of every request. */
    static boolean isPart(String part) {
        int n = part.length();
        if (n == 0 || n > 255 || part.charAt(0) == '-') {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = part.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    public static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }

    public static String shorten(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
