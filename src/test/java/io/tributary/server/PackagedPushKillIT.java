package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.IndependentReader;
import io.tributary.delta.Tables;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC §11.3 "exactly once under server kills", against the packaged server as a user runs it ({@code java -jar
 * target/quarkus-app/quarkus-run.jar}, the settings of the README's table only): producers push over HTTP, one batch
 * in flight each, while the server is killed with SIGKILL three times and started again. A batch without an answer is
 * re-sent with the same sequence once the server is back; some of those were committed before the kill and only their
 * acknowledgement was lost. The table, read with Kernel's stock engine, ends with exactly the pushed rows, each once.
 *
 * <p>Runs after {@code package} (Maven's integration-test phase, tag {@code packaged}), against the jar just built.
 */
@Tag("packaged")
class PackagedPushKillIT {
    /** Free when the test starts; the restarted server takes it again (nothing else binds it between kills). */
    private static final int PORT = freePort();
    private static final String STREAMS = "/api/2.0/feature-engineering/streams";
    private static final String STREAM = "main.pushkill.events";
    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}}}";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(240);
    private static final int PRODUCERS = 8;
    private static final int BATCHES = 40;
    private static final int PER_BATCH = 25;
    private static final int KILLS = 3;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String api = "http://127.0.0.1:" + PORT;

    @TempDir
    Path dir;

    @Test
    void producersRetryingThroughKill9sOfThePackagedServerEndWithExactlyThePushedRows() throws Exception {
        Path jar = Path.of(System.getProperty("tributary.test.build-dir", "target"), "quarkus-app", "quarkus-run.jar");
        assertThat(jar).as("the packaged server (./mvnw package)").exists();
        assertThat(ready()).as("nothing else answers on port " + PORT).isFalse();
        List<Path> logs = new ArrayList<>();
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dir.resolve("postgres")).start()) {
            Map<String, String> env = new LinkedHashMap<>();
            env.put("QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://127.0.0.1:" + postgres.getPort() + "/postgres");
            env.put("QUARKUS_DATASOURCE_USERNAME", "postgres");
            env.put("QUARKUS_DATASOURCE_PASSWORD", "postgres");
            env.put("TRIBUTARY_WAREHOUSE", dir.resolve("warehouse").toString());
            env.put("TRIBUTARY_SECRETS_KEY", PackagedServerIT.randomKey());
            env.put("QUARKUS_HTTP_PORT", String.valueOf(PORT));
            String location = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty())
                    .defaultLocation("main", "pushkill", "events_ingestion");

            Process[] server = {start(jar, env, logs)};
            AtomicInteger acked = new AtomicInteger();
            AtomicInteger retries = new AtomicInteger();
            AtomicInteger unansweredAtKills = new AtomicInteger();
            AtomicInteger[] inFlight = new AtomicInteger[PRODUCERS];
            ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS);
            try {
                HttpResponse<String> created = send("POST", STREAMS, "{\"name\": \"" + STREAM + "\", "
                        + "\"source_config\": {\"direct_source_config\": {}}, \"schema_config\": {\"direct_schemas\": "
                        + "{\"payload_schema\": {\"json_schema\": \"" + SCHEMA.replace("\"", "\\\"") + "\"}}}, "
                        + "\"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + STREAM
                        + "_ingestion\"}}}");
                assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
                List<Future<?>> producers = new ArrayList<>();
                for (int p = 0; p < PRODUCERS; p++) {
                    String producer = "k-" + p;
                    AtomicInteger pushing = inFlight[p] = new AtomicInteger();
                    producers.add(pool.submit(() -> {
                        for (int seq = 0; seq < BATCHES; seq++) {
                            String body = batch(producer, seq);
                            for (int attempt = 0; ; attempt++) {
                                if (attempt > 0) {
                                    retries.incrementAndGet();
                                }
                                HttpResponse<String> r;
                                pushing.set(1);
                                try {
                                    r = send("POST", STREAMS + "/" + STREAM + "/records", body);
                                } catch (IOException killedOrDown) {
                                    Thread.sleep(200); // the same batch again, once the server is back
                                    continue;
                                } finally {
                                    pushing.set(0);
                                }
                                if (r.statusCode() == 200) {
                                    // The answer comes after the commit: a batch retried after a kill that had
                                    // landed before it is acknowledged again, without its rows a second time.
                                    assertThat(r.body()).contains("\"committed_sequence\":" + seq);
                                    acked.incrementAndGet();
                                    break;
                                }
                                // Starting up, the server may not serve pushes yet; a sequence gap would be a bug.
                                assertThat(r.statusCode()).as(r.body()).isIn(500, 502, 503);
                                Thread.sleep(200);
                            }
                        }
                        return null;
                    }));
                }
                for (int kill = 1; kill <= KILLS; kill++) {
                    // Each kill after some more acknowledgements, while producers have batches in flight.
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
                    int target = kill * PRODUCERS * BATCHES / (KILLS + 1);
                    while (acked.get() < target && System.nanoTime() < until) {
                        Thread.sleep(10);
                    }
                    for (AtomicInteger p : inFlight) {
                        unansweredAtKills.addAndGet(p.get());
                    }
                    server[0].destroyForcibly(); // SIGKILL: no shutdown hook, the group commit cut wherever it was
                    server[0].waitFor(30, TimeUnit.SECONDS);
                    server[0] = start(jar, env, logs);
                }
                for (Future<?> f : producers) {
                    f.get(600, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
                server[0].destroyForcibly();
                server[0].waitFor(30, TimeUnit.SECONDS);
            }

            List<Map<String, Object>> rows = IndependentReader.rows(location);
            Map<Object, Integer> counts = new HashMap<>();
            rows.forEach(r -> counts.merge(((Map<?, ?>) r.get("value")).get("id"), 1, Integer::sum));
            Map<Object, Integer> twice = new HashMap<>(counts);
            twice.values().removeIf(n -> n == 1);
            assertThat(twice).as("rows landed more than once").isEmpty();
            List<String> expected = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                for (int seq = 0; seq < BATCHES; seq++) {
                    for (int i = 0; i < PER_BATCH; i++) {
                        expected.add("k-" + p + "-" + seq + "-" + i);
                    }
                }
            }
            assertThat(counts.keySet()).as("exactly the pushed rows").containsExactlyInAnyOrderElementsOf(expected);
            System.out.printf("PackagedPushKillIT: killed %d times with %d pushes unanswered; %d rows, %d retries%n",
                    KILLS, unansweredAtKills.get(), rows.size(), retries.get());
            assertThat(retries.get()).as("the kills cost retries").isPositive();
        } finally {
            keepLogs(logs);
        }
    }

    private Process start(Path jar, Map<String, String> env, List<Path> logs) throws Exception {
        Path log = dir.resolve("server-" + (logs.size() + 1) + ".log");
        logs.add(log);
        Process server = PackagedServerIT.spawn(jar, env, log);
        PackagedServerIT.awaitOrFail(server, log, START_TIMEOUT, this::ready, "ready");
        return server;
    }

    private static String batch(String producer, long seq) {
        StringBuilder b = new StringBuilder("{\"producer_id\": \"" + producer + "\", \"sequence\": " + seq
                + ", \"records\": [");
        for (int i = 0; i < PER_BATCH; i++) {
            b.append(i == 0 ? "" : ", ").append("{\"value\": {\"id\": \"").append(producer).append('-').append(seq)
                    .append('-').append(i).append("\"}}");
        }
        return b.append("]}").toString();
    }

    private HttpResponse<String> send(String method, String path, String body) throws IOException,
            InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(api + path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private boolean ready() {
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

    /** The servers' logs outlive the temporary directory, for a look after a failure. */
    private static void keepLogs(List<Path> logs) throws IOException {
        Path kept = Path.of(System.getProperty("tributary.test.build-dir", "target"), "packaged-push-kill-it");
        Files.createDirectories(kept);
        for (Path log : logs) {
            if (Files.exists(log)) {
                Files.copy(log, kept.resolve(log.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static int freePort() {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
