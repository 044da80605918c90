package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.Tables;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.testing.KafkaTestSupport;
import io.tributary.testing.StreamRequests;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged server as a user runs it (SPEC 7: {@code java -jar target/quarkus-app/quarkus-run.jar}), in an
 * environment holding only the README's configuration table's variables: the registry database's reactive URL, user
 * and password, the warehouse, the data key and the HTTP port. No JDBC URL and no Kafka of the server's own (nothing
 * of the server's listens on localhost:9092); the stream's cluster is a broker on another port. A stream is created and
 * fed, the server is killed with SIGKILL while records arrive, and a second server process started the same way
 * ingests the rest: the table then holds exactly the produced records.
 *
 * <p>Runs after {@code package} (Maven's integration-test phase, tag {@code packaged}), against the jar just built.
 */
@Tag("packaged")
class PackagedServerIT {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;
    private static final String STREAM = "main.packaged.orders";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(240);
    private static final Duration INGEST_TIMEOUT = Duration.ofSeconds(180);

    /** Locales of a machine abroad (what {@code LANG=ar_EG.UTF-8} or {@code tr_TR.UTF-8} give the JVM). */
    static final List<String> ARABIC_DIGITS = List.of("-Duser.language=ar", "-Duser.country=EG");
    static final List<String> TURKISH = List.of("-Duser.language=tr", "-Duser.country=TR");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    void startsWithTheDocumentedSettingsAndResumesAfterKill9() throws Exception {
        Path jar = packagedJar();
        if (listening(9092)) {
            System.err.println("PackagedServerIT: something else listens on localhost:9092; the server must not care");
        }
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dir.resolve("postgres")).start();
                EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, Map.of());
                KafkaTestSupport topics = new KafkaTestSupport(kafka.bootstrapServers())) {
            assertThat(kafka.port()).isNotEqualTo(9092);
            topics.createTopic(TOPIC, PARTITIONS);
            int httpPort = freePort();
            Map<String, String> env = documentedSettings(postgres);
            env.put("TRIBUTARY_WAREHOUSE", dir.resolve("warehouse").toString());
            env.put("QUARKUS_HTTP_PORT", String.valueOf(httpPort));
            String api = "http://127.0.0.1:" + httpPort;
            Tables tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
            String location = tables.defaultLocation("main", "packaged", "orders_ingestion");
            List<String> expected = new ArrayList<>();
            int[] next = new int[PARTITIONS];

            // The servers run as users abroad do: a locale whose digits are not ASCII (Kernel names commit files with
            // the default locale's String.format: the create failed with a log file named in Arabic digits), then one
            // with Turkish case rules.
            Process first = spawn(jar, env, dir.resolve("server-1.log"), ARABIC_DIGITS);
            try {
                awaitOrFail(first, dir.resolve("server-1.log"), START_TIMEOUT, () -> ready(api), "ready");
                post(api, "/api/2.0/connections", "{\"name\": \"cluster\", \"connection_type\": \"KAFKA\", "
                        + "\"options\": {\"bootstrap_servers\": \"" + kafka.bootstrapServers() + "\"}}");
                post(api, "/api/2.0/feature-engineering/streams",
                        StreamRequests.valid(STREAM, "cluster", TOPIC).toString());
                produce(topics, 30, next, expected);
                awaitOrFail(first, dir.resolve("server-1.log"), INGEST_TIMEOUT,
                        () -> rowCount(tables, location) == expected.size(), "the first records ingested");
                produce(topics, 30, next, expected);
            } finally {
                first.destroyForcibly(); // SIGKILL: no shutdown hook, no clean consumer close
                first.waitFor(30, TimeUnit.SECONDS);
            }

            Process second = spawn(jar, env, dir.resolve("server-2.log"), TURKISH);
            try {
                awaitOrFail(second, dir.resolve("server-2.log"), START_TIMEOUT, () -> ready(api), "ready again");
                produce(topics, 30, next, expected);
                awaitOrFail(second, dir.resolve("server-2.log"), INGEST_TIMEOUT,
                        () -> rowCount(tables, location) >= expected.size(),
                        "every record ingested after the restart");
                assertThat(KafkaTestSupport.coordinates(KafkaTestSupport.rows(tables, location)))
                        .as("exactly the produced records, no gap, no duplicate")
                        .containsExactlyInAnyOrderElementsOf(expected);
            } finally {
                second.destroy();
                if (!second.waitFor(30, TimeUnit.SECONDS)) {
                    second.destroyForcibly();
                }
            }
        } finally {
            keepLogs();
        }
    }

    /**
     * The README's first command as a stranger abroad meets it: local mode (embedded PostgreSQL and Kafka on
     * localhost:9092) under a Turkish locale, where Kafka's broker upper-cased "classic" to "CLASSİC" and the server
     * stopped before it started. A stream on the embedded broker takes records produced to it.
     */
    @Test
    void localModeRunsUnderTheMachinesLocale() throws Exception {
        Path jar = packagedJar();
        org.junit.jupiter.api.Assumptions.assumeFalse(listening(9092),
                "local mode's embedded Kafka needs localhost:9092, which something else holds");
        int httpPort = freePort();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("TRIBUTARY_LOCAL", "true");
        env.put("TRIBUTARY_DATA_DIR", dir.resolve("data").toString());
        env.put("TRIBUTARY_WAREHOUSE", dir.resolve("warehouse").toString());
        env.put("QUARKUS_HTTP_PORT", String.valueOf(httpPort));
        String api = "http://127.0.0.1:" + httpPort;
        Tables tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
        String location = tables.defaultLocation("main", "packaged", "orders_ingestion");
        Path log = dir.resolve("server-local.log");
        Process server = spawn(jar, env, log, TURKISH);
        try {
            awaitOrFail(server, log, START_TIMEOUT, () -> ready(api), "ready");
            post(api, "/api/2.0/connections", "{\"name\": \"cluster\", \"connection_type\": \"KAFKA\", "
                    + "\"options\": {\"bootstrap_servers\": \"localhost:9092\"}}");
            try (KafkaTestSupport topics = new KafkaTestSupport("localhost:9092")) {
                topics.createTopic(TOPIC, PARTITIONS);
                post(api, "/api/2.0/feature-engineering/streams",
                        StreamRequests.valid(STREAM, "cluster", TOPIC).toString());
                List<String> expected = new ArrayList<>();
                produce(topics, 30, new int[PARTITIONS], expected);
                awaitOrFail(server, log, INGEST_TIMEOUT, () -> rowCount(tables, location) >= expected.size(),
                        "the records ingested");
                assertThat(KafkaTestSupport.coordinates(KafkaTestSupport.rows(tables, location)))
                        .containsExactlyInAnyOrderElementsOf(expected);
            }
        } finally {
            server.destroy(); // its shutdown hooks stop the embedded PostgreSQL and Kafka
            if (!server.waitFor(60, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
            keepLogs();
        }
    }

    /**
     * Two packaged servers on one registry and warehouse share a stream (its partitions split between their consumers,
     * both committing to its table) that has a CONTINUOUS synced table and a feature view: each server syncs and
     * materializes after its own commits, so the two race for the same synced table and view. One server is killed
     * (SIGKILL) while records arrive; the survivor takes its partitions over. In the end every record is in the table
     * once, and both the synced table and the view, looked up on the survivor, hold exactly what the records say: the
     * latest amount of each key, and each key's count and greatest amount.
     */
    @Test
    void twoServersShareAStreamItsSyncedTableAndItsFeatureViewOneKilled() throws Exception {
        Path jar = packagedJar();
        int partitions = 4;
        int keys = 40;
        int rounds = 6;
        String topic = "shared";
        String stream = "main.packaged.shared";
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dir.resolve("postgres")).start();
                EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, Map.of());
                KafkaTestSupport topics = new KafkaTestSupport(kafka.bootstrapServers())) {
            topics.createTopic(topic, partitions);
            Map<String, String> env = documentedSettings(postgres);
            env.put("TRIBUTARY_WAREHOUSE", dir.resolve("warehouse").toString());
            Map<String, String> envA = new LinkedHashMap<>(env);
            Map<String, String> envB = new LinkedHashMap<>(env);
            int portA = freePort();
            int portB = freePort();
            envA.put("QUARKUS_HTTP_PORT", String.valueOf(portA));
            envB.put("QUARKUS_HTTP_PORT", String.valueOf(portB));
            String apiA = "http://127.0.0.1:" + portA;
            String apiB = "http://127.0.0.1:" + portB;
            Path logA = dir.resolve("server-a.log");
            Path logB = dir.resolve("server-b.log");
            Tables tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
            String location = tables.defaultLocation("main", "packaged", "shared_ingestion");
            Process a = spawn(jar, envA, logA);
            Process b = spawn(jar, envB, logB);
            try {
                awaitOrFail(a, logA, START_TIMEOUT, () -> ready(apiA), "ready");
                awaitOrFail(b, logB, START_TIMEOUT, () -> ready(apiB), "ready");
                post(apiA, "/api/2.0/connections", "{\"name\": \"cluster\", \"connection_type\": \"KAFKA\", "
                        + "\"options\": {\"bootstrap_servers\": \"" + kafka.bootstrapServers() + "\"}}");
                post(apiA, "/api/2.0/feature-engineering/streams",
                        StreamRequests.valid(stream, "cluster", topic).toString());
                post(apiA, "/api/2.0/database/synced_tables", "{\"name\": \"" + stream + "_online\", \"spec\": {"
                        + "\"source_table_full_name\": \"" + stream + "_ingestion\", \"primary_key_columns\": "
                        + "[\"value.id\"], \"timeseries_key\": \"stream_record_timestamp\", "
                        + "\"scheduling_policy\": \"CONTINUOUS\"}}");
                post(apiA, "/api/2.0/feature-engineering/feature-views", "{\"name\": \"" + stream + "_features\", "
                        + "\"source\": {\"stream_name\": \"" + stream + "\"}, \"entity_columns\": [\"value.id\"], "
                        // Each server commits its own partitions' batches, and the killed one's last records are
                        // committed by the other a session timeout later: the lateness must cover that (SPEC §10,
                        // the watermark; at 0s, about half the killed server's partitions' records were dropped).
                        + "\"allowed_lateness\": \"2m\", "
                        + "\"features\": [{\"name\": \"n\", \"function\": \"count\", \"window\": {\"rolling\": "
                        + "{\"duration\": \"1h\"}}}, {\"name\": \"top\", \"function\": \"max\", \"column\": "
                        + "\"value.amount\", \"window\": {\"rolling\": {\"duration\": \"1h\"}}}]}");
                try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                        Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
                    for (int round = 1; round <= rounds; round++) {
                        for (int k = 0; k < keys; k++) {
                            int partition = k % partitions;
                            topics.send(topic, partition, null, ("{\"id\": \"k" + k + "\", \"amount\": "
                                    + (round * 1000 + k) + "}").getBytes(StandardCharsets.UTF_8));
                        }
                        topics.flush();
                        if (round == 1) {
                            // Records wake both servers' idle streams: each joins the stream's group and gets a share
                            // of its partitions, so both commit from here on.
                            awaitOrFail(a, logA, START_TIMEOUT, () -> bothConsume(admin),
                                    "both servers in the stream's group, each holding partitions");
                        }
                        if (round == rounds / 2) {
                            long half = (long) keys * round;
                            awaitOrFail(a, logA, INGEST_TIMEOUT, () -> rowCount(tables, location) == half,
                                    "half the rounds ingested");
                            b.destroyForcibly(); // SIGKILL mid-flow: its partitions and its share of the syncs move
                            b.waitFor(30, TimeUnit.SECONDS);
                        }
                        Thread.sleep(1_500); // a round's records in batches of their own: each key's versions in order
                    }
                }
                long total = (long) keys * rounds;
                awaitOrFail(a, logA, INGEST_TIMEOUT, () -> rowCount(tables, location) >= total,
                        "every record ingested");
                assertThat(KafkaTestSupport.rows(tables, location)).hasSize((int) total);
                StringBuilder lookupKeys = new StringBuilder();
                for (int k = 0; k < keys; k++) {
                    lookupKeys.append(k == 0 ? "" : ", ").append("{\"value_id\": \"k").append(k).append("\"}");
                }
                String body = "{\"keys\": [" + lookupKeys + "]}";
                long deadline = System.nanoTime() + INGEST_TIMEOUT.toNanos();
                List<String> wrong = List.of("not looked up yet");
                while (!wrong.isEmpty() && System.nanoTime() < deadline && a.isAlive()) {
                    com.fasterxml.jackson.databind.JsonNode rows = lookup(apiA,
                            "/api/2.0/database/synced_tables/" + stream + "_online/lookup", body).path("rows");
                    com.fasterxml.jackson.databind.JsonNode features = lookup(apiA,
                            "/api/2.0/feature-engineering/feature-views/" + stream + "_features/lookup", body)
                            .path("results");
                    List<String> now = new ArrayList<>();
                    for (int k = 0; k < keys; k++) {
                        double latest = rounds * 1000 + k;
                        if (rows.path(k).path("value_amount").asDouble(-1) != latest) {
                            now.add("synced k" + k + ": " + rows.path(k));
                        }
                        if (features.path(k).path("n").asLong(-1) != rounds
                                || features.path(k).path("top").asDouble(-1) != latest) {
                            now.add("features k" + k + ": " + features.path(k));
                        }
                    }
                    wrong = now;
                    if (!wrong.isEmpty()) {
                        Thread.sleep(500);
                    }
                }
                assertThat(wrong).as("keys whose synced row or features differ from the records (server A's log: %s)",
                        logA).isEmpty();
                com.fasterxml.jackson.databind.JsonNode view = get(apiA,
                        "/api/2.0/feature-engineering/feature-views/" + stream + "_features");
                assertThat(view.path("materialization_status").path("late_records_dropped").asLong(-1))
                        .as("%s", view).isZero();
            } finally {
                a.destroy();
                b.destroyForcibly();
                a.waitFor(30, TimeUnit.SECONDS);
            }
        } finally {
            keepLogs();
        }
    }

    /** Whether the (one) stream's consumer group has two members, each holding partitions. */
    private static boolean bothConsume(org.apache.kafka.clients.admin.Admin admin) {
        try {
            for (var listing : admin.listGroups().all().get()) {
                if (listing.groupId().startsWith("tributary-")) {
                    var group = admin.describeConsumerGroups(List.of(listing.groupId())).all().get()
                            .get(listing.groupId());
                    return group.members().size() == 2 && group.members().stream()
                            .allMatch(m -> !m.assignment().topicPartitions().isEmpty());
                }
            }
            return false;
        } catch (Exception e) {
            return false;
        }
    }

    private com.fasterxml.jackson.databind.JsonNode get(String api, String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(api + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET %s: %s", path, response.body()).isEqualTo(200);
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body());
    }

    private com.fasterxml.jackson.databind.JsonNode lookup(String api, String path, String body) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(api + path))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("POST %s: %s", path, response.body()).isEqualTo(200);
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body());
    }

    /**
     * A warehouse path beyond ASCII on a machine with no LANG (a container, a service unit): the JVM names files in
     * ASCII there, and the server stopped with "Malformed input or input contains unmappable characters" and no word
     * of which setting. It must stop naming TRIBUTARY_WAREHOUSE and the fix.
     */
    @Test
    void aWarehousePathTheLocaleCannotNameStopsTheServerNamingTheSettingAndTheFix() throws Exception {
        Path jar = packagedJar();
        Path log = dir.resolve("server-path.log");
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dir.resolve("postgres")).start()) {
            Map<String, String> env = documentedSettings(postgres); // the warehouse comes from the shell below
            env.put("QUARKUS_HTTP_PORT", String.valueOf(freePort()));
            env.put("WAREHOUSE_PARENT", dir.toString());
            // The shell writes the path's "é" as UTF-8 bytes: this JVM, if its own locale lacked UTF-8, would send '?'.
            List<String> command = List.of("/bin/sh", "-c", "TRIBUTARY_WAREHOUSE=\"$WAREHOUSE_PARENT/warehouse "
                    + "$(printf '\\303\\251')\" exec \"$0\" -Xmx512m -jar \"$1\"",
                    ProcessHandle.current().info().command().orElse("java"), jar.toAbsolutePath().toString());
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            builder.environment().clear(); // no LANG, no LC_ALL: the C locale
            builder.environment().putAll(env);
            Process server = builder.start();
            try {
                assertThat(server.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                        .as("the server stops by itself").isTrue();
                String output = Files.readString(log, StandardCharsets.ISO_8859_1);
                assertThat(server.exitValue()).as(output).isNotZero();
                assertThat(output).contains("TRIBUTARY_WAREHOUSE: the path '").contains("LANG=C.UTF-8");
            } finally {
                server.destroyForcibly();
            }
        } finally {
            keepLogs();
        }
    }

    /** The jar this build just packaged (SPEC 7's {@code java -jar target/quarkus-app/quarkus-run.jar}). */
    private static Path packagedJar() {
        Path jar = Path.of(System.getProperty("tributary.test.build-dir", "target"), "quarkus-app", "quarkus-run.jar");
        assertThat(jar).as("the packaged server (./mvnw package)").exists();
        return jar;
    }

    /**
     * The README's configuration table's settings for a server on {@code postgres}, but the warehouse and the HTTP
     * port: the registry database's reactive URL, user and password, and a data key.
     */
    private static Map<String, String> documentedSettings(EmbeddedPostgres postgres) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://127.0.0.1:" + postgres.getPort() + "/postgres");
        env.put("QUARKUS_DATASOURCE_USERNAME", "postgres");
        env.put("QUARKUS_DATASOURCE_PASSWORD", "postgres");
        env.put("TRIBUTARY_SECRETS_KEY", randomKey());
        return env;
    }

    /** The servers' logs outlive the temporary directory, for a look after a failure. */
    private void keepLogs() throws IOException {
        Path kept = Path.of(System.getProperty("tributary.test.build-dir", "target"), "packaged-server-it");
        Files.createDirectories(kept);
        for (String log : List.of("server-1.log", "server-2.log", "server-local.log", "server-path.log",
                "server-a.log", "server-b.log")) {
            if (Files.exists(dir.resolve(log))) {
                Files.copy(dir.resolve(log), kept.resolve(log), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** A child whose environment is exactly {@code env}: nothing inherited, as on a fresh machine. */
    static Process spawn(Path jar, Map<String, String> env, Path log) throws IOException {
        return spawn(jar, env, log, List.of());
    }

    /** As {@link #spawn(Path, Map, Path)}, with JVM options before {@code -jar} (a locale, say). */
    static Process spawn(Path jar, Map<String, String> env, Path log, List<String> jvmOptions) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-Xmx512m");
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(log.getParent().toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().clear();
        builder.environment().putAll(env);
        return builder.start();
    }

    private static void produce(KafkaTestSupport topics, int count, int[] next, List<String> expected) {
        for (int i = 0; i < count; i++) {
            int partition = i % PARTITIONS;
            int offset = next[partition]++;
            topics.send(TOPIC, partition, null, ("{\"id\": \"" + partition + "-" + offset + "\", \"amount\": " + i
                    + ".5}").getBytes(StandardCharsets.UTF_8));
            expected.add(TOPIC + "/" + partition + "/" + offset);
        }
        topics.flush();
    }

    private static long rowCount(Tables tables, String location) {
        return tables.exists(location) ? KafkaTestSupport.rows(tables, location).size() : 0;
    }

    private boolean ready(String api) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(api + "/q/health/ready")).timeout(Duration.ofSeconds(5))
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void post(String api, String path, String body) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(api + path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("POST %s: %s", path, response.body()).isEqualTo(200);
    }

    /** Waits for {@code condition}; fails with the server's log tail if the server exits or time runs out. */
    static void awaitOrFail(Process server, Path log, Duration timeout, BooleanSupplier condition, String what)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (!server.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("server " + (server.isAlive() ? "not " + what + " within " + timeout
                        : "exited with " + server.exitValue() + " before " + what) + "; its log ends with:\n"
                        + tail(log));
            }
            Thread.sleep(500);
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    private static boolean listening(int port) {
        try (var socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static String randomKey() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }
}
