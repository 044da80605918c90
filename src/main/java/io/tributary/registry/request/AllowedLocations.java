package io.tributary.registry.request;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where tables may live (issue 12, SPEC 2.4): the warehouse and the roots an administrator allowed with
 * {@code TRIBUTARY_EXTERNAL_LOCATIONS}. A location is normalised before it is compared — S3 keys segment by
 * segment, local paths with their symbolic links resolved — so {@code ..}, a percent-encoded {@code ..} or
 * {@code /}, another bucket, a sibling prefix ({@code warehouse2} next to {@code warehouse}) or a link pointing out of
 * an allowed root never pass.
 */
public final class AllowedLocations {
    private final List<Normalised> roots = new ArrayList<>();
    private final List<String> described = new ArrayList<>();

    /** A location in a form that compares segment by segment: an S3 bucket and key, or a real local path. */
    public record Normalised(String bucket, List<String> segments, Path local) {
        public boolean within(Normalised root) {
            if (local != null) {
                return root.local != null && local.startsWith(root.local);
            }
            return root.local == null && bucket.equals(root.bucket) && segments.size() >= root.segments.size()
                    && segments.subList(0, root.segments.size()).equals(root.segments);
        }

        public String text() {
            return local != null ? local.toString() : "s3://" + bucket + "/" + String.join("/", segments);
        }
    }

    /**
     * @param warehouse the warehouse root ({@code TRIBUTARY_WAREHOUSE})
     * @param external  further roots ({@code TRIBUTARY_EXTERNAL_LOCATIONS}); blank entries are ignored
     */
    public AllowedLocations(String warehouse, List<String> external) {
        add("TRIBUTARY_WAREHOUSE", warehouse);
        for (String root : external) {
            if (root != null && !root.isBlank()) {
                add("TRIBUTARY_EXTERNAL_LOCATIONS", root.trim());
            }
        }
    }

    private void add(String setting, String root) {
        String lower = root.toLowerCase(Locale.ROOT);
        boolean relative = !(lower.startsWith("s3://") || lower.startsWith("s3a://") || lower.startsWith("file:")
                || root.startsWith("/"));
        try {
            roots.add(normalise(setting, relative ? Path.of(root).toAbsolutePath().normalize().toString() : root));
        } catch (ApiException e) {
            throw new IllegalStateException(setting + " holds a location that cannot be used as a table root: "
                    + e.getMessage());
        }
        described.add(root);
    }

    /**
     * The location as given (trimmed, without a trailing slash) once its normalised form lies within an allowed
     * root.
     *
     * @throws ApiException naming {@code field}: malformed, or outside every allowed root
     */
    public String check(String field, String location) {
        if (location == null || location.isBlank()) {
            throw ApiException.missing(field);
        }
        String trimmed = location.trim();
        Normalised n = normalise(field, trimmed);
        for (Normalised root : roots) {
            if (n.within(root)) {
                return trimmed.length() > 1 && trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1)
                        : trimmed;
            }
        }
        throw new ApiException(ErrorCode.PERMISSION_DENIED, field + ": '" + Names.shorten(trimmed)
                + "' is outside the warehouse and the locations an administrator allowed (" + String.join(", ",
                described) + "); put the table there, or ask an administrator to add its root to "
                + "TRIBUTARY_EXTERNAL_LOCATIONS");
    }

    public static Normalised normalise(String field, String location) {
        if (location.chars().anyMatch(Character::isISOControl)) {
            throw ApiException.invalid(field, "must not contain control characters");
        }
        if (location.contains("%")) {
            throw ApiException.invalid(field, "must not be percent-encoded; give the location as a plain path "
                    + "or s3:// URI");
        }
        if (location.contains("\\")) {
            throw ApiException.invalid(field, "must not contain '\\'; separate path segments with '/'");
        }
        String lower = location.toLowerCase(Locale.ROOT);
        if (lower.startsWith("s3://") || lower.startsWith("s3a://")) {
            String rest = location.substring(location.indexOf("://") + 3);
            while (rest.endsWith("/")) {
                rest = rest.substring(0, rest.length() - 1);
            }
            String[] parts = rest.split("/", -1);
            if (parts[0].isEmpty()) {
                throw ApiException.invalid(field, "names no bucket; use s3://bucket/prefix");
            }
            List<String> segments = new ArrayList<>();
            for (int i = 1; i < parts.length; i++) {
                checkSegment(field, parts[i]);
                segments.add(parts[i]);
            }
            return new Normalised(parts[0].toLowerCase(Locale.ROOT), List.copyOf(segments), null);
        }
        String path;
        if (lower.startsWith("file:")) {
            path = location.substring("file:".length());
            if (path.startsWith("//")) {
                // file:///a and file://localhost/a name /a; another host is no local path
                int slash = path.indexOf('/', 2);
                String host = slash < 0 ? path.substring(2) : path.substring(2, slash);
                if (!host.isEmpty() && !host.equalsIgnoreCase("localhost")) {
                    throw ApiException.invalid(field, "names host '" + Names.shorten(host) + "'; a file: "
                            + "location must be on this machine (file:/path)");
                }
                path = slash < 0 ? "/" : path.substring(slash);
            }
        } else if (location.startsWith("/")) {
            path = location;
        } else {
            throw ApiException.invalid(field, "'" + Names.shorten(location) + "' is not an absolute path or an "
                    + "s3:// URI; use s3://bucket/prefix or /absolute/path");
        }
        for (String segment : path.split("/")) {
            if (!segment.isEmpty()) {
                checkSegment(field, segment);
            }
        }
        return new Normalised(null, List.of(), realPath(field, Path.of(path).toAbsolutePath().normalize()));
    }

    private static void checkSegment(String field, String segment) {
        if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
            throw ApiException.invalid(field, "must not contain empty, '.' or '..' path segments; give the "
                    + "table's full path");
        }
    }

    /** The path with every symbolic link of its existing part resolved; the part that does not exist yet appended. */
    private static Path realPath(String field, Path path) {
        Path existing = path;
        List<Path> missing = new ArrayList<>();
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            missing.add(0, existing.getFileName());
            existing = existing.getParent();
        }
        if (existing == null) {
            return path;
        }
        Path real;
        try {
            real = existing.toRealPath();
        } catch (IOException e) {
            // a dangling link or an unreadable directory: it cannot be shown to stay inside a root
            throw ApiException.invalid(field, "cannot be resolved on this server (a dangling link or an "
                    + "unreadable directory)");
        }
        for (Path m : missing) {
            real = real.resolve(m.toString());
        }
        return real;
    }
}
