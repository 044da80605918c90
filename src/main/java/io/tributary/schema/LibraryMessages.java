package io.tributary.schema;

import java.util.regex.Pattern;

/**
 * Makes a parser's or client library's message fit for an API answer: no Java class or method names (they tell a
 * caller nothing and reveal the implementation), no echo of the whole input (Jackson appends the source text), and a
 * bounded length (a message may quote a multi-megabyte schema).
 */
public final class LibraryMessages {
    private static final Pattern CLASS_NAME = Pattern.compile("(?:com\\.fasterxml|tools\\.jackson|org\\.apache"
            + "|com\\.google|com\\.squareup|com\\.networknt|java|javax|jakarta|io\\.vertx|io\\.quarkus|io\\.smallrye"
            + "|org\\.jboss|org\\.hibernate|org\\.jose4j|io\\.netty|io\\.tributary|kotlin)(?:\\.[A-Za-z_$][\\w$]*)+"
            + "(?:\\(\\))?(?::\\s*)?");
    /** Jackson's "(from `StreamReadConstraints.getMaxNestingDepth()`)" and the like. */
    private static final Pattern CODE_REFERENCE = Pattern.compile("\\s*\\(from `[^`]*`\\)|,\\s*from `[^`]*`"
            + "|`[A-Z][\\w$]*\\.[\\w$]+\\(\\)`");
    private static final Pattern JACKSON_SOURCE = Pattern.compile("\\s*at \\[Source: .*", Pattern.DOTALL);
    private static final int MAX_LENGTH = 500;

    private LibraryMessages() {}

    public static String clean(String message) {
        if (message == null) {
            return null;
        }
        String out = JACKSON_SOURCE.matcher(message).replaceFirst("");
        out = CODE_REFERENCE.matcher(out).replaceAll("");
        out = CLASS_NAME.matcher(out).replaceAll("");
        out = out.replace('\n', ' ').replace('\r', ' ').replace("\u0000", "\\0").trim();
        return out.length() <= MAX_LENGTH ? out : out.substring(0, MAX_LENGTH - 3) + "...";
    }
}
