package io.tributary.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The Testcontainers variant of {@link TributaryServices}: PostgreSQL and Kafka in Docker containers. Used by
 * {@link ContainersApiTest} under the Maven profile {@code -Pcontainers}; that test is disabled when Docker is absent,
 * so this resource never starts without Docker.
 */
public class ContainerServices implements QuarkusTestResourceLifecycleManager {
    private PostgreSQLContainer postgres;
    private KafkaContainer kafka;
    private Path root;

    @Override
    public Map<String, String> start() {
        postgres = new PostgreSQLContainer("postgres:16-alpine");
        kafka = new KafkaContainer("apache/kafka-native:3.8.0");
        postgres.start();
        kafka.start();
        try {
            root = Files.createTempDirectory("tributary-containers-");
            Files.createDirectories(root.resolve("warehouse"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String jdbc = postgres.getJdbcUrl();
        return Map.of(
                "quarkus.datasource.jdbc.url", jdbc,
                "quarkus.datasource.reactive.url", jdbc.replaceFirst("^jdbc:", ""),
                "quarkus.datasource.username", postgres.getUsername(),
                "quarkus.datasource.password", postgres.getPassword(),
                "kafka.bootstrap.servers", kafka.getBootstrapServers(),
                "tributary.warehouse", root.resolve("warehouse").toString(),
                "tributary.data-dir", root.resolve("data").toString(),
                "tributary.secrets-key", TributaryServices.randomKey());
    }

    @Override
    public void stop() {
        if (kafka != null) {
            kafka.stop();
        }
        if (postgres != null) {
            postgres.stop();
        }
        if (root != null) {
            TributaryServices.deleteQuietly(root);
        }
    }
}
