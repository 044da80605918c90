package io.tributary.readme;

import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.testing.Command;
import io.tributary.testing.KcatProducer;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's walk-through, synced-table, feature-view and direct-ingest commands, run by bash as a reader pastes
 * them, against the test server. What differs from a reader's machine is put around the commands, not into them: the
 * server's address replaces {@code localhost:8080}; a broker of the test's own, configured as local mode's (topics
 * made on first produce, 3 partitions), replaces {@code localhost:9092}; {@code curl} is wrapped to send the test
 * server's admin token (the walk-through's server has authentication off) and to fail on an HTTP error, which
 * {@code curl -s} alone would print and go on; {@code kcat} is {@link KcatProducer} when the machine has none.
 * Between blocks the test waits as the README tells a reader to ("within a few seconds").
 *
 * <p>Left out, because they need what the README leaves to the reader: the point-in-time call (a spine table of the
 * reader's), the rescued-records calls (a stream created with {@code rescue_undecodable}) and {@code psql}.
 */
@Tag("quarkus")
@QuarkusTest
class ReadmeWalkthroughTest {

    private static final Path README = Path.of("README.md");

    @TestHTTPResource("/")
    URL server;

    @TempDir
    Path dir;

    @Test
    void theReadmesCommandsWorkAsWritten() throws Exception {
        assumeTrue(Command.run(dir, 120, Map.of(), "bash", "-c", "command -v curl").code() == 0,
                "curl is not on the PATH: README walk-through skipped");
        List<String> blocks = codeBlocks(Files.readString(README));
        String walkthrough = block(blocks, b -> b.contains("API=http://localhost:8080/api"), "the walk-through");
        String synced = block(blocks, b -> b.contains("/2.0/database/synced_tables -d"), "the synced tables");
        String views = block(blocks, b -> b.contains("/2.0/feature-engineering/feature-views -d"), "the feature views");
        String direct = block(blocks, b -> b.contains("direct_source_config"), "direct ingest");

        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, Map.of(
                "auto.create.topics.enable", "true", "num.partitions", "3"))) {
            String shell = prelude();
            String broker = kafka.bootstrapServers();

            String out = bash(shell, walkthrough, broker);
            assertThat(out).contains("\"name\":\"main.fraud.transactions\"", "tributary_ingest");
            // "within a few seconds: state RUNNING, rows_ingested 4, decode_failures 1"
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                JsonPath stream = as(ROOT).get("/api/2.0/feature-engineering/streams/main.fraud.transactions")
                        .then().statusCode(200).extract().jsonPath();
                assertThat(stream.getString("state")).isEqualTo("RUNNING");
                assertThat(stream.getMap("ingestion_status")).containsEntry("rows_ingested", 4)
                        .containsEntry("decode_failures", 1);
            });

            out = bash(shell, synced, broker);
            assertThat(out).as("the lookup of t1 and t2")
                    .contains("\"value_transaction_id\":\"t1\",\"value_user_id\":\"u1\",\"value_amount\":1.5")
                    .contains("\"value_transaction_id\":\"t2\"");

            out = bash(shell, views, broker);
            assertThat(out).contains("\"name\":\"main.fraud.user_features\"", "\"results\":[");
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(as(ROOT)
                    .get("/api/2.0/feature-engineering/feature-views/main.fraud.user_features").then()
                    .statusCode(200).extract().jsonPath().getMap("materialization_status"))
                    .containsEntry("state", "ONLINE").containsEntry("records_read", 3));

            out = bash(shell, direct, broker);
            assertThat(out).contains("\"producer_id\":\"web-1\",\"committed_sequence\":0");
        }
    }

    /**
     * Runs in every block's shell: the README's {@code $API} points at the test's server; {@code curl} fails on an
     * HTTP error and carries the admin token; {@code kcat} exists.
     */
    private String prelude() throws IOException, InterruptedException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        if (Command.run(dir, 120, Map.of(), "bash", "-c", "command -v kcat").code() != 0) {
            Path kcat = bin.resolve("kcat");
            Files.writeString(kcat, "#!/usr/bin/env bash\nexec '" + Path.of(System.getProperty("java.home"), "bin",
                    "java") + "' -cp '" + System.getProperty("java.class.path") + "' "
                    + KcatProducer.class.getName() + " \"$@\"\n");
            Files.setPosixFilePermissions(kcat, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        String address = server.getHost() + ":" + server.getPort();
        return String.join("\n",
                "set -euo pipefail",
                "export PATH='" + bin + "':\"$PATH\"",
                "API=http://" + address + "/api",
                "curl() {",
                "  local out code",
                "  out=$(command curl -sS -H 'Authorization: Bearer " + ROOT + "' -w '\\n%{http_code}' \"$@\")",
                "  code=${out##*$'\\n'}",
                "  printf '%s\\n' \"${out%$'\\n'*}\"",
                "  if [ \"$code\" -ge 400 ]; then echo \"HTTP $code from: curl $*\" >&2; return 1; fi",
                "}",
                "") + "\n";
    }

    private String bash(String prelude, String block, String broker) throws Exception {
        String address = server.getHost() + ":" + server.getPort();
        Command r = Command.run(dir, 120, Map.of(), "bash", "-c", prelude
                + block.replace("localhost:8080", address).replace("localhost:9092", broker));
        assertThat(r.code()).as("the README block\n%s\nended with %s; its output:\n%s", block, r.code(), r.output())
                .isZero();
        return r.output();
    }

    /** The fenced code blocks of a Markdown text, in order. */
    static List<String> codeBlocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        StringBuilder current = null;
        for (String line : markdown.split("\n", -1)) {
            if (line.startsWith("```")) {
                if (current == null) {
                    current = new StringBuilder();
                } else {
                    blocks.add(current.toString());
                    current = null;
                }
            } else if (current != null) {
                current.append(line).append('\n');
            }
        }
        return blocks;
    }

    private static String block(List<String> blocks, Predicate<String> which, String what) {
        List<String> found = blocks.stream().filter(which).toList();
        assertThat(found).as("README's code block of %s", what).hasSize(1);
        return found.get(0);
    }
}
