package io.tributary.console;

import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tributary.backfill.BackfillFixtures;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.testing.Command;
import io.tributary.testing.StreamRequests;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The web console in headless Chromium (Debian's {@code chromium}; Playwright's {@code playwright-core} on node,
 * installed by {@code npm ci} from src/test/console into target/console-test on first use). The test server holds
 * the states the console must show, made through the API and the real pipeline: a running stream with rows, a stream
 * whose backfill completed (the schedule merges it, as in BackfillScheduleTest), and a stream whose broker was
 * stopped while records flowed, which the stall watchdog reports {@code STALLED}. Then src/test/console/
 * console-test.mjs drives the console: the list, the stream page, a create through the form with a field error
 * first, a delete, and 1,000 streams rendered from a captured list response (the figure is printed). Skipped,
 * saying why, without chromium or node.
 */
@Tag("quarkus")
@QuarkusTest
class ConsoleBrowserTest {
    private static final String STREAMS = "/api/2.0/feature-engineering/streams";
    private static final Path SOURCES = Path.of("src/test/console");
    private static final Path WORK = Path.of("target/console-test");

    @Inject
    Tables tables;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @TestHTTPResource("/console/")
    URL console;

    @Test
    void theConsoleShowsWhatTheStreamsDo() throws Exception {
        String chromium = System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium");
        assumeTrue(Files.isExecutable(Path.of(chromium)), chromium + " is not installed: console browser test skipped "
                + "(Debian: apt-get install chromium; or set CHROMIUM)");
        assumeTrue(Command.run(Path.of("."), 30, Map.of(), "node", "--version").code() == 0,
                "node is not on the PATH: console browser test skipped");
        installPlaywright();

        String schema = unique("console");
        // A running stream with rows (and so a chart and partitions with offsets).
        String connection = connection(bootstrap);
        String topic = topic(bootstrap, 3);
        String running = "main." + schema + ".orders";
        // Rescue on, so the undecodable record below is kept and shown on the stream's page.
        as(ROOT).body(StreamRequests.with(StreamRequests.valid(running, connection, topic),
                "ingestion_config.rescue_undecodable", true).toString()).post(STREAMS).then().statusCode(200);
        try (var producer = producer(bootstrap)) {
            for (int i = 0; i < 30; i++) {
                producer.send(new ProducerRecord<>(topic, i % 3, "k" + i, "{\"id\": \"o" + i + "\", \"amount\": " + i + "}"));
            }
            producer.send(new ProducerRecord<>(topic, 0, "bad", "not json")).get();
        }
        await("the orders stream ingests").atMost(Duration.ofSeconds(90)).until(() -> as(ROOT).get(STREAMS + "/" + running)
                .then().statusCode(200).extract().jsonPath().getLong("ingestion_status.rows_ingested") == 31);

        String backfilled = completedBackfill(schema);
        Stalled stalled = stalledStream(schema);

        Map<String, String> env = new HashMap<>();
        env.put("CONSOLE_URL", console.toString());
        env.put("CONSOLE_TOKEN", ROOT);
        env.put("CONSOLE_CATALOG", "main");
        env.put("CONSOLE_SCHEMA", schema);
        env.put("CONSOLE_RUNNING", running);
        env.put("CONSOLE_BACKFILLED", backfilled);
        env.put("CONSOLE_STALLED", stalled.name);
        env.put("CONSOLE_STALLED_SKIP", stalled.skipReason);
        env.put("CONSOLE_CONNECTION", connection);
        env.put("CONSOLE_TOPIC", topic);
        env.put("CHROMIUM", chromium);
        Path shots = WORK.resolve("screenshots");
        Files.createDirectories(shots);
        env.put("CONSOLE_SCREENSHOTS", shots.toAbsolutePath().toString());
        holdForDevelopment(env);
        Command result = Command.run(WORK, 600, env, "node", "console-test.mjs");
        System.out.println(result.output());
        assertThat(result.code()).as("console-test.mjs:\n" + result.output()).isZero();
        assertThat(result.output()).contains("PASS lists the streams", "PASS shows a completed backfill",
                "PASS creates a stream through the form", "PASS a bad stream shows the API error next to the field",
                "FIGURE console list, 1,000 streams");
        if (!stalled.name.isEmpty()) {
            assertThat(result.output()).contains("PASS shows a STALLED stream as stalled");
        }
        // The form's stream is gone again (the script deleted it through the console).
        as(ROOT).get(STREAMS + "/main." + schema + ".formmade").then().statusCode(404);
        for (String name : List.of(running, backfilled, "main." + schema + ".stuck")) {
            as(ROOT).delete(STREAMS + "/" + name).then().statusCode(200);
        }
    }

    /** A stream with the Spark-written tx_history as backfill source, merged by the server's schedule. */
    private String completedBackfill(String schema) throws Exception {
        BackfillFixtures.ApiStream created = BackfillFixtures.createTxStreamWithHistory(tables, bootstrap, schema);
        DeltaTable table = tables.open(tables.defaultLocation("main", schema, "tx_ingestion"));
        PartitionKey p0 = new PartitionKey(created.topic(), 0);
        long from = table.positions().get(p0);
        List<GenericRecord> rows = List.of(
                BackfillFixtures.txRow(table.rowSchema(), "s-1", "tx-3", Instant.parse("2025-12-31T23:30:00Z"),
                        created.topic(), from),
                BackfillFixtures.txRow(table.rowSchema(), "s-2", "tx-new", Instant.parse("2026-01-01T02:00:00Z"),
                        created.topic(), from + 1));
        table.commit(List.of(table.writeDataFile(rows)), Map.of(p0, new OffsetRange(from, from + 2)));
        await("the schedule completes the backfill").atMost(Duration.ofSeconds(90)).until(() -> "COMPLETED".equals(
                as(ROOT).get(STREAMS + "/" + created.name()).then().statusCode(200).extract().jsonPath()
                        .getString("backfill_status.state")));
        return created.name();
    }

    private record Stalled(String name, String skipReason) {}

    /**
     * A stream on a broker of its own, stopped while records flow: its partitions keep their lag and nothing commits,
     * which the stall watchdog reports as STALLED within 10 trigger intervals. Required once the server has the state
     * ({@code IngestionStatus.State.STALLED}); before that the browser check is skipped and says so.
     */
    private Stalled stalledStream(String schema) throws Exception {
        boolean serverKnowsStalled = java.util.Arrays.stream(IngestionStatus.State.values())
                .anyMatch(s -> s.name().equals("STALLED"));
        Path dir = Files.createTempDirectory("console-stalled-broker");
        EmbeddedKafka broker = EmbeddedKafka.start(dir, 0, Map.of());
        String name = "main." + schema + ".stuck";
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread flow;
        try {
            String connection = connection(broker.bootstrapServers());
            String topic = topic(broker.bootstrapServers(), 2);
            as(ROOT).body(StreamRequests.valid(name, connection, topic).toString()).post(STREAMS).then().statusCode(200);
            KafkaProducer<String, String> producer = producer(broker.bootstrapServers());
            flow = new Thread(() -> {
                try (producer) {
                    for (int i = 0; producing.get(); i++) {
                        producer.send(new ProducerRecord<>(topic, i % 2, null, "{\"id\": \"s" + i + "\"}"));
                        Thread.sleep(20);
                    }
                } catch (InterruptedException | RuntimeException e) {
                    // the broker went away: that is the point
                }
            }, "console-stalled-producer");
            flow.start();
            await("the stuck stream commits before its broker stops").atMost(Duration.ofSeconds(90))
                    .until(() -> as(ROOT).get(STREAMS + "/" + name).then().extract().jsonPath()
                            .getLong("ingestion_status.rows_ingested") > 0);
        } finally {
            broker.close(); // while the producer still sends: records are waiting that never commit
        }
        producing.set(false);
        flow.join(TimeUnit.SECONDS.toMillis(30));
        if (!serverKnowsStalled) {
            return new Stalled("", "the server does not know the STALLED state yet (IngestionStatus.State has no "
                    + "STALLED: the stall watchdog is not merged); the stuck stream " + name + " is "
                    + as(ROOT).get(STREAMS + "/" + name).then().extract().jsonPath().getString("state"));
        }
        JsonPath stalled = await("the watchdog reports the stream STALLED").atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> as(ROOT).get(STREAMS + "/" + name).then().statusCode(200).extract().jsonPath(),
                        s -> "STALLED".equals(s.getString("state")));
        assertThat(stalled.getString("state_message")).isNotBlank();
        return new Stalled(name, "");
    }

    /**
     * With {@code -Dconsole.hold=true}: writes the script's environment to target/console-test/env.sh and keeps the
     * server up while target/console-test/hold exists (at most 30 minutes), to run the script by hand while editing.
     */
    private static void holdForDevelopment(Map<String, String> env) throws IOException, InterruptedException {
        if (!Boolean.getBoolean("console.hold")) {
            return;
        }
        StringBuilder sh = new StringBuilder();
        env.forEach((k, v) -> sh.append("export ").append(k).append("='").append(v).append("'\n"));
        Files.writeString(WORK.resolve("env.sh"), sh);
        Path hold = WORK.resolve("hold");
        Files.writeString(hold, "");
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
        while (Files.exists(hold) && System.nanoTime() < until) {
            Thread.sleep(1000);
        }
    }

    private static String connection(String bootstrap) {
        String connection = unique("kafka");
        as(ROOT).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        return connection;
    }

    private static String topic(String bootstrap, int partitions) throws Exception {
        String topic = unique("console");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        }
        return topic;
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        return new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000),
                new StringSerializer(), new StringSerializer());
    }

    private static void installPlaywright() throws IOException, InterruptedException {
        Files.createDirectories(WORK);
        for (String file : List.of("package.json", "package-lock.json", "console-test.mjs")) {
            Files.copy(SOURCES.resolve(file), WORK.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        if (!Files.exists(WORK.resolve("node_modules/playwright-core/package.json"))) {
            assumeTrue(Command.run(Path.of("."), 30, Map.of(), "npm", "--version").code() == 0,
                    "npm is not on the PATH: cannot install playwright-core, console browser test skipped");
            Command npm = Command.run(WORK, 300, Map.of(), "npm", "ci", "--no-audit", "--no-fund");
            assertThat(npm.code()).as("npm ci in " + WORK + ":\n" + npm.output()).isZero();
        }
    }
}
