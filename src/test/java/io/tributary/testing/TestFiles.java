package io.tributary.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** What a local table's directory holds, for tests that check a writer left nothing behind. */
public final class TestFiles {
    private TestFiles() {}

    /** Every file and directory below a local table location ({@code file:} or a path); none when it is gone. */
    public static List<Path> under(String location) {
        Path dir = Path.of(location.replaceFirst("^file:", ""));
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            return paths.filter(p -> !p.equals(dir)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The regular files alone below the location: directories a writer leaves empty do not count. */
    public static List<Path> regularFilesUnder(String location) {
        return under(location).stream().filter(Files::isRegularFile).toList();
    }
}
