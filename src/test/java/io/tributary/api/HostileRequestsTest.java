package io.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.tributary.api.HostileRequests.Request;
import io.tributary.testing.Api;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 7: seeded random hostile requests against every endpoint — random, huge and deeply nested JSON,
 * wrong types, unicode, NUL, {@code ..}, {@code /}, percent-encoded names, SQL text, multi-megabyte schemas with very
 * many columns. Never a 500, never a hang (every answer within {@link #ANSWER_WITHIN}), every error in the SPEC 2
 * shape without a library class name, and no partial change: every stream, table, connection and Delta log that
 * exists afterwards belongs to a request that answered 200.
 *
 * <p>{@code -Dfuzz.requests=N} (default 10,000), {@code -Dfuzz.clients=C} (default 4 concurrent clients, each with
 * its own generator seeded from {@code -Dfuzz.seed=S}). Plain HTTP to the server's port, so the Lambda build (API
 * Gateway events) skips it.
 */
@Tag("quarkus")
@Tag("server-only")
@QuarkusTest
class HostileRequestsTest {
    static final int REQUESTS = Integer.getInteger("fuzz.requests", 10_000);
    static final long SEED = Long.getLong("fuzz.seed", 12L);
    // A bound for a hang, not a latency goal: a 60,000-field .proto takes the parser several seconds on a loaded 2-core box.
    static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final Pattern CLASS_NAME = Pattern.compile("(com\\.fasterxml|tools\\.jackson|org\\.apache|java\\.lang"
            + "|java\\.io|io\\.vertx|io\\.quarkus|org\\.hibernate|io\\.tributary|Exception\\b|\\$\\w+\\.java)");
    static final Set<Integer> ALLOWED = Set.of(200, 400, 401, 403, 404, 405, 409, 413, 415);

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @ConfigProperty(name = "tributary.warehouse")
    String warehouse;
    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String jdbcUrl;

    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    static final int CLIENTS = Integer.getInteger("fuzz.clients", 4);
    final Map<Integer, Integer> statuses = new java.util.concurrent.ConcurrentSkipListMap<>();
    /** Every broken promise of the run, reported together at the end. */
    final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    final Map<String, Long> millisByKind = new java.util.concurrent.ConcurrentSkipListMap<>();
    /** Names the server accepted (200), lower-cased as it stores them. */
    final Set<String> createdStreams = java.util.concurrent.ConcurrentHashMap.newKeySet();
    final Set<String> createdTables = java.util.concurrent.ConcurrentHashMap.newKeySet();
    final Set<String> createdConnections = java.util.concurrent.ConcurrentHashMap.newKeySet();
    String connection;
    String scope;

    @Test
    void tenThousandHostileRequestsNeverAnswer500NorHangNorChangeAnythingHalfway() throws Exception {
        connection = Api.unique("fuzzconn");
        scope = Api.unique("fuzzscope");
        send(new Request("POST", "/api/2.0/connections", Api.ALICE, "application/json", utf8("{\"name\": \""
                + connection + "\", \"connection_type\": \"KAFKA\", \"options\": {\"bootstrap_servers\": \""
                + bootstrap + "\"}}")), 200);
        send(new Request("POST", "/api/2.0/secrets/scopes/create", Api.ALICE, "application/json",
                utf8("{\"scope\": \"" + scope + "\"}")), 200);
        Set<String> streamsBefore = rows("SELECT full_name FROM streams");
        Set<String> tablesBefore = rows("SELECT full_name FROM registered_tables");
        Set<String> connectionsBefore = rows("SELECT name FROM connections");
        Set<String> logsBefore = deltaLogs();

        long started = System.nanoTime();
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(CLIENTS);
        List<java.util.concurrent.Future<?>> running = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            running.add(clients.submit(() -> {
                // One generator per client, seeded from the run's seed and the client's number.
                HostileRequests requests = new HostileRequests(new Random(SEED * 31 + client), connection, scope,
                        bootstrap, warehouse);
                for (int i = client; i < REQUESTS; i += CLIENTS) {
                    Request r = requests.next(i);
                    try {
                        send(r, -1);
                    } catch (AssertionError | Exception e) {
                        if (failures.size() < 30) {
                            failures.add(e.getMessage());
                        }
                    }
                }
                return null;
            }));
        }
        for (java.util.concurrent.Future<?> f : running) {
            f.get();
        }
        clients.shutdown();
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        System.out.println("HostileRequestsTest: " + REQUESTS + " requests (seed " + SEED + ") in " + seconds
                + " s; statuses " + statuses);
        millisByKind.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(12)
                .forEach(e -> System.out.println("  " + e.getValue() + " ms  " + e.getKey()));

        assertThat(failures).as("%s of %s requests broke a promise", failures.size(), REQUESTS).isEmpty();
        assertThat(statuses).doesNotContainKey(500);
        Set<String> streamsAfter = rows("SELECT full_name FROM streams");
        streamsAfter.removeAll(streamsBefore);
        assertThat(createdStreams).containsAll(streamsAfter);
        Set<String> tablesAfter = rows("SELECT full_name FROM registered_tables");
        tablesAfter.removeAll(tablesBefore);
        assertThat(createdTables).containsAll(tablesAfter);
        Set<String> connectionsAfter = rows("SELECT name FROM connections");
        connectionsAfter.removeAll(connectionsBefore);
        assertThat(createdConnections).containsAll(connectionsAfter);
        // A rejected create leaves no Delta log behind (every new one is an ingestion table of a created stream).
        Set<String> logsAfter = deltaLogs();
        logsAfter.removeAll(logsBefore);
        Set<String> createdLocations = new HashSet<>();
        for (String t : rows("SELECT storage_location FROM registered_tables")) {
            createdLocations.add(Path.of(t.replaceFirst("^file:", "")).normalize().toString());
        }
        assertThat(createdLocations).containsAll(logsAfter);
    }
    // ---- sending and checking -------------------------------------------------------------------------------------

    private void send(Request r, int expected) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + RestAssured.port + r.path()))
                .timeout(ANSWER_WITHIN);
        if (r.token() != null) {
            b.header("Authorization", "Bearer " + r.token());
        }
        if (r.contentType() != null) {
            b.header("Content-Type", r.contentType());
        }
        b.method(r.method(), r.body() == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(r.body()));
        HttpResponse<String> response;
        long t0 = System.nanoTime();
        try {
            response = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            String kind = r.method() + " " + r.path().replaceAll("^((?:/[^/?]*){4}).*", "$1") + " "
                    + response.statusCode();
            long took = (System.nanoTime() - t0) / 1_000_000L;
            millisByKind.merge(kind, took, Long::sum);
            if (took > 1000) {
                System.out.println("slow " + took + " ms " + response.statusCode() + " " + describe(r).substring(0,
                        Math.min(200, describe(r).length())) + " -> " + response.body().substring(0,
                        Math.min(300, response.body().length())));
            }
        } catch (java.net.http.HttpTimeoutException e) {
            throw new AssertionError("no answer within " + ANSWER_WITHIN + ": " + describe(r), e);
        } catch (IOException e) {
            if (r.body() != null && r.body().length > 4 * 1024 * 1024) {
                // The server may close the connection after its 413 while the client still writes the body.
                statuses.merge(413, 1, Integer::sum);
                return;
            }
            throw new AssertionError("the connection failed: " + describe(r), e);
        }
        int status = response.statusCode();
        statuses.merge(status, 1, Integer::sum);
        String body = response.body();
        if (expected > 0 && status != expected) {
            throw new AssertionError(describe(r) + " answered " + status + ": " + body);
        }
        assertThat(ALLOWED).as("%s answered %s: %s", describe(r), status, body).contains(status);
        if (status != 200) {
            JsonNode error = MAPPER.readTree(body);
            assertThat(error.path("error_code").isTextual()).as("%s: %s", describe(r), body).isTrue();
            assertThat(error.path("message").asText()).as(describe(r)).isNotBlank().doesNotContainPattern(CLASS_NAME);
            return;
        }
        remember(r, MAPPER.readTree(body));
    }

    private void remember(Request r, JsonNode answer) {
        if (!"POST".equals(r.method())) {
            return;
        }
        switch (r.path()) {
            case "/api/2.0/feature-engineering/streams" -> {
                createdStreams.add(answer.path("name").asText());
                createdTables.add(answer.path("ingestion_config").path("ingestion_destination")
                        .path("delta_table_name").asText());
            }
            case "/api/2.1/unity-catalog/tables" -> createdTables.add(answer.path("name").asText());
            case "/api/2.0/connections" -> createdConnections.add(answer.path("name").asText());
            default -> { }
        }
    }

    private static String describe(Request r) {
        String body = r.body() == null ? "" : new String(r.body(), StandardCharsets.UTF_8);
        return r.method() + " " + r.path() + " " + (body.length() > 300 ? body.substring(0, 300) + "..." : body);
    }

    private Set<String> rows(String sql) throws Exception {
        Set<String> out = new HashSet<>();
        try (Connection c = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
                Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private Set<String> deltaLogs() throws IOException {
        Set<String> out = new HashSet<>();
        try (Stream<Path> walk = Files.walk(Path.of(warehouse), 5)) {
            walk.filter(p -> p.getFileName().toString().equals("_delta_log"))
                    .forEach(p -> out.add(p.getParent().toAbsolutePath().normalize().toString()));
        }
        return out;
    }


    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
