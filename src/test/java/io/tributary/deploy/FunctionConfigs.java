package io.tributary.deploy;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The function-configs/ directory: one sub-directory with a function.properties per Lambda function. */
final class FunctionConfigs {

    private FunctionConfigs() {}

    static Path dir(Path repo) {
        return repo.resolve("function-configs");
    }

    static Set<String> names(Path repo) throws IOException {
        try (Stream<Path> dirs = Files.list(dir(repo))) {
            Set<String> names = new TreeSet<>();
            dirs.filter(d -> Files.isRegularFile(d.resolve("function.properties")))
                    .forEach(d -> names.add(d.getFileName().toString()));
            return names;
        }
    }

    static Path file(Path repo, String function) {
        return dir(repo).resolve(function).resolve("function.properties");
    }

    /** As Maven's properties-maven-plugin reads it. */
    static Properties load(Path repo, String function) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file(repo, function))) {
            properties.load(reader);
        }
        return properties;
    }
}
