package io.tributary.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Each build copies several resource folders into one classes folder (pom.xml: the server adds src/server and
 * src/console; every function src/lambda-common, stream-api src/console too). A file in two of them is copied twice
 * and one copy silently wins: that is how the functions lost their Secrets Manager config source to the server's.
 */
class ResourceRootsTest {
    private static final List<List<String>> BUILDS = List.of(
            List.of("src/main/resources", "src/server/resources", "src/console/resources"),
            List.of("src/main/resources", "src/lambda-common/resources", "src/console/resources"));

    @Test
    void noBuildCopiesTwoResourcesToOnePath() throws IOException {
        for (List<String> roots : BUILDS) {
            Map<Path, String> seen = new HashMap<>();
            for (String root : roots) {
                Path dir = Path.of(root);
                if (!Files.isDirectory(dir)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(dir)) {
                    for (Path f : files.filter(Files::isRegularFile).toList()) {
                        String before = seen.putIfAbsent(dir.relativize(f), root);
                        assertThat(before).as("%s is in both %s and %s", dir.relativize(f), before, root).isNull();
                    }
                }
            }
        }
    }
}
