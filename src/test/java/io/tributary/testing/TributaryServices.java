package io.tributary.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.tributary.server.local.EmbeddedKafka;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The real services every {@code @QuarkusTest} runs against: an embedded PostgreSQL (zonky) and an in-process Kafka
 * broker, a temporary warehouse and data directory, and a secrets key. They start once per test JVM and stay up across
 * Quarkus restarts (test profiles), so each test uses names of its own. Registered for every test class by
 * {@link GlobalTestResources}. No Docker needed. Like a deployment (SPEC 6), they give the registry's reactive URL
 * only: the JDBC URL is derived from it.
 *
 * <p>With the system property {@code tributary.test.containers=true} (Maven profile {@code -Pcontainers}) this
 * resource yields to {@link ContainerServices} and starts nothing.
 */
public class TributaryServices implements QuarkusTestResourceLifecycleManager {
    private static Map<String, String> config;

    @Override
    public synchronized Map<String, String> start() {
        if (Boolean.getBoolean("tributary.test.containers")) {
            return Map.of();
        }
        if (config == null) {
            config = startServices();
        }
        return config;
    }

    @Override
    public void stop() {
        // Shared by all test classes of the JVM; a shutdown hook stops them.
    }

    private static Map<String, String> startServices() {
        try {
            Path root = Files.createTempDirectory("tributary-test-");
            EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(root.resolve("postgres")).start();
            EmbeddedKafka kafka = EmbeddedKafka.start(root.resolve("kafka"), 0, Map.of());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                kafka.close();
                try {
                    postgres.close();
                } catch (IOException e) {
                    // exiting anyway
                }
                deleteQuietly(root);
            }, "tributary-test-services-stop"));
            int pg = postgres.getPort();
            Files.createDirectories(root.resolve("warehouse"));
            return Map.of(
                    "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + pg + "/postgres",
                    "quarkus.datasource.username", "postgres",
                    "quarkus.datasource.password", "postgres",
                    "kafka.bootstrap.servers", kafka.bootstrapServers(),
                    "tributary.warehouse", root.resolve("warehouse").toString(),
                    "tributary.data-dir", root.resolve("data").toString(),
                    "tributary.secrets-key", randomKey());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String randomKey() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }

    static void deleteQuietly(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temp directory
        }
    }
}
