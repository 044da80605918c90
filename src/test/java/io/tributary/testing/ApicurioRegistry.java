package io.tributary.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Apicurio Registry 3 (unpacked by the build into target/apicurio) as a child process, with its
 * Confluent-compatible API. It needs Java 21+: {@link #javaHome()} finds one, and tests skip with a clear message
 * when there is none. Its storage is an H2 file, so {@link #restart()} keeps every schema and id.
 */
public final class ApicurioRegistry implements AutoCloseable {

    // target/<function>/apicurio in a function build: surefire names the build directory (pom.xml).
    private static final Path APP = Path.of(System.getProperty("tributary.test.build-dir", "target"), "apicurio",
            "quarkus-run.jar");

    private final Path java;
    private final Path dataDir;
    private final int port;
    private Process process;

    private ApicurioRegistry(Path java, Path dataDir, int port) {
        this.java = java;
        this.dataDir = dataDir;
        this.port = port;
    }

    /** A Java 21+ home: TRIBUTARY_TEST_JAVA21_HOME, else the first one found under /usr/lib/jvm. */
    public static Optional<Path> javaHome() {
        String configured = System.getenv("TRIBUTARY_TEST_JAVA21_HOME");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured)).filter(h -> Files.isExecutable(h.resolve("bin/java")));
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.filter(h -> Files.isExecutable(h.resolve("bin/java")))
                    .filter(h -> featureVersion(h) >= 21)
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Why the registry cannot run here, or empty when it can. */
    public static Optional<String> unavailableReason() {
        if (javaHome().isEmpty()) {
            return Optional.of("Apicurio Registry needs Java 21+; set TRIBUTARY_TEST_JAVA21_HOME to a JDK 21+ home");
        }
        if (!Files.exists(APP)) {
            return Optional.of("Apicurio Registry is not unpacked at " + APP + "; run the tests through Maven");
        }
        return Optional.empty();
    }

    public static ApicurioRegistry start(Path dataDir) {
        Path home = javaHome().orElseThrow(() -> new IllegalStateException(unavailableReason().orElseThrow()));
        ApicurioRegistry registry = new ApicurioRegistry(home.resolve("bin/java"), dataDir, freePort());
        registry.launch();
        return registry;
    }

    /** The Confluent-compatible base URL, e.g. {@code http://127.0.0.1:1234/apis/ccompat/v7}. */
    public String url() {
        return "http://127.0.0.1:" + port + "/apis/ccompat/v7";
    }

    public void stop() {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    public void restart() {
        stop();
        launch();
    }

    @Override
    public void close() {
        stop();
    }

    private void launch() {
        List<String> command = new ArrayList<>(List.of(
                java.toString(), "-Xmx512m",
                "-Dquarkus.http.host=127.0.0.1",
                "-Dquarkus.http.port=" + port,
                "-Dquarkus.management.host=127.0.0.1",
                "-Dquarkus.management.port=" + freePort(),
                "-Dapicurio.datasource.url=jdbc:h2:file:" + dataDir.toAbsolutePath().resolve("registry"),
                "-Dapicurio.ccompat.legacy-id-mode.enabled=true",
                "-jar", APP.toAbsolutePath().toString()));
        try {
            Files.createDirectories(dataDir);
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(dataDir.resolve("registry.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Apicurio Registry exited; see " + dataDir.resolve("registry.log"));
            }
            if (answers()) {
                return;
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        stop();
        throw new IllegalStateException("Apicurio Registry did not start in 90 s; see " + dataDir.resolve("registry.log"));
    }

    private boolean answers() {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(url() + "/subjects").toURL().openConnection();
            c.setConnectTimeout(500);
            c.setReadTimeout(2000);
            return c.getResponseCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    private static int featureVersion(Path home) {
        try {
            Path release = home.resolve("release");
            if (!Files.exists(release)) {
                return 0;
            }
            for (String line : Files.readAllLines(release)) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    return Integer.parseInt(v.split("[.+-]")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
