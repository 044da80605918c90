package io.tributary.runtime.lambda;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

/**
 * The real services a function test runs against: an embedded PostgreSQL (zonky), a temporary local warehouse and a
 * secrets key. The server's io.tributary.testing.TributaryServices is not on a function build's test path (only
 * io/tributary/runtime/lambda tests compile there), and functions need no Kafka broker: events carry the records.
 */
public class LambdaTestServices implements QuarkusTestResourceLifecycleManager {
    private static Map<String, String> config;

    @Override
    public synchronized Map<String, String> start() {
        if (config == null) {
            config = startServices();
        }
        return config;
    }

    @Override
    public void stop() {
        // Shared by all test classes of the JVM; a shutdown hook stops PostgreSQL.
    }

    private static Map<String, String> startServices() {
        try {
            Path root = Files.createTempDirectory("tributary-lambda-test-");
            EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(root.resolve("postgres")).start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    postgres.close();
                } catch (IOException e) {
                    // exiting anyway
                }
            }, "tributary-lambda-test-stop"));
            int pg = postgres.getPort();
            Files.createDirectories(root.resolve("warehouse"));
            byte[] key = new byte[32];
            new SecureRandom().nextBytes(key);
            return Map.of(
                    "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + pg + "/postgres",
                    "quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:" + pg + "/postgres",
                    "quarkus.datasource.username", "postgres",
                    "quarkus.datasource.password", "postgres",
                    "tributary.warehouse", root.resolve("warehouse").toString(),
                    "tributary.data-dir", root.resolve("data").toString(),
                    "tributary.secrets-key", Base64.getEncoder().encodeToString(key));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
