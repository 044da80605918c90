package io.tributary.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Local paths from settings, checked before use. Under a locale without UTF-8 (a container or service unit with no
 * LANG) the JVM names files in ASCII only, and a path beyond it stopped the server with "Malformed input or input
 * contains unmappable characters" and no word of which setting or why.
 */
public final class LocalPaths {
    private LocalPaths() {}

    /**
     * {@code path} unchanged when the JVM can name it (a URI with a scheme other than {@code file:} is not a local
     * path); else an error naming {@code setting} and the fix.
     */
    public static String usable(String setting, String path) {
        if (path.contains("://") && !path.startsWith("file:")) {
            return path;
        }
        try {
            Path.of(path.startsWith("file:") ? path.substring("file:".length()) : path);
            return path;
        } catch (InvalidPathException e) {
            throw new IllegalStateException(setting + ": the path '" + path + "' cannot be used here: " + e.getReason()
                    + "; the JVM names files in " + System.getProperty("sun.jnu.encoding")
                    + ", so a path beyond ASCII needs a UTF-8 locale (e.g. LANG=C.UTF-8), or choose another path");
        }
    }
}
