package io.tributary.testing;

import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every @QuarkusTest must carry @Tag("quarkus"): the build runs those in their own JVM (see pom.xml). */
class ServerTestsAreTaggedTest {

    @Test
    void everyQuarkusTestIsTagged() throws IOException {
        List<Path> untagged;
        // src/test/java and the function test roots (src/lambda-*/test/java), whose builds split tests the same way.
        try (Stream<Path> files = Files.walk(Path.of("src"))) {
            untagged = files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/test/java/"))
                    .filter(f -> {
                        String text = read(f);
                        return text.contains("\n@QuarkusTest") && !text.contains("@Tag(\"quarkus\")");
                    })
                    .toList();
        }
        assertThat(untagged).as("@QuarkusTest classes without @Tag(\"quarkus\")").isEmpty();
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
