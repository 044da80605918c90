package io.tributary.server;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.response.Response;
import io.tributary.delta.IndependentReader;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.schema.SchemaSource;
import jakarta.inject.Inject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC §11.3 "exactly once under server kills": producers push to another server (a child JVM with the same group
 * commit and write fence, {@link PushServerProcess}) that is killed with SIGKILL while batches are in flight, three
 * times, each time started again. A producer whose batch got no answer re-sends it with the same sequence, to the
 * restarted server or to this one over HTTP. The table, read with Kernel's stock engine, ends with exactly the
 * pushed rows, each once.
 */
@Tag("quarkus")
@QuarkusTest
class DirectPushKillTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}}}";

    @Inject
    Tables tables;
    @Inject
    StreamDirectory directory;

    /** The other server: pushes go in on stdin, answers come back by producer and sequence. */
    static final class Other {
        final Process process;
        final Writer in;
        final Map<String, CompletableFuture<Long>> waiting = new ConcurrentHashMap<>();
        final AtomicInteger acked = new AtomicInteger();

        Other(Process process) throws Exception {
            this.process = process;
            this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            for (String line; (line = out.readLine()) != null && !line.equals("ready"); ) {
                // the child's start-up output
            }
            Thread reader = new Thread(() -> {
                try {
                    for (String line; (line = out.readLine()) != null; ) {
                        String[] f = line.split(" ", 4);
                        CompletableFuture<Long> w = waiting.remove(f[1] + " " + f[2]);
                        if (w != null && f[0].equals("ack")) {
                            acked.incrementAndGet();
                            w.complete(Long.parseLong(f[3]));
                        } else if (w != null) {
                            w.completeExceptionally(new IllegalStateException(line));
                        }
                    }
                } catch (Exception e) {
                    // killed
                }
                waiting.values().forEach(w -> w.completeExceptionally(new IllegalStateException("server killed")));
            });
            reader.setDaemon(true);
            reader.start();
        }

        CompletableFuture<Long> push(String producer, long seq, String body) {
            CompletableFuture<Long> answer = new CompletableFuture<>();
            waiting.put(producer + " " + seq, answer);
            try {
                synchronized (in) {
                    in.write(body + "\n");
                    in.flush();
                }
            } catch (Exception e) {
                answer.completeExceptionally(e);
            }
            if (!process.isAlive()) {
                answer.completeExceptionally(new IllegalStateException("server killed"));
            }
            return answer;
        }
    }

    static String batch(String producer, long seq, int records) {
        StringBuilder b = new StringBuilder("{\"producer_id\": \"" + producer + "\", \"sequence\": " + seq
                + ", \"records\": [");
        for (int i = 0; i < records; i++) {
            b.append(i == 0 ? "" : ", ").append("{\"value\": {\"id\": \"").append(producer).append('-').append(seq)
                    .append('-').append(i).append("\"}}");
        }
        return b.append("]}").toString();
    }

    @Test
    void producersRetryingThroughServerKillsEndWithExactlyThePushedRows() throws Throwable {
        String schema = unique("kill");
        String name = "main." + schema + ".events";
        String id = as(ALICE).body("{\"name\": \"" + name + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": \""
                + SCHEMA.replace("\"", "\\\"") + "\"}}}, \"ingestion_config\": {\"ingestion_destination\": "
                + "{\"delta_table_name\": \"" + name + "_ingestion\"}}}").post(STREAMS).then().statusCode(200)
                .extract().jsonPath().getString("stream_id");
        PipelineSpec spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(id)).orElseThrow();
        assertThat(spec.keySchema()).as("the child builds the same spec").isInstanceOf(SchemaSource.Plain.class);
        var config = ConfigProvider.getConfig();
        String[] childArgs = {config.getValue("quarkus.datasource.jdbc.url", String.class),
                config.getValue("quarkus.datasource.username", String.class),
                config.getValue("quarkus.datasource.password", String.class),
                config.getValue("tributary.warehouse", String.class), spec.tableLocation(), id, name, SCHEMA};
        java.util.function.Supplier<Other> start = () -> {
            try {
                return new Other(PushServerProcess.spawn(childArgs[0], childArgs[1], childArgs[2], childArgs[3],
                        childArgs[4], childArgs[5], childArgs[6], childArgs[7]));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        Other[] other = {start.get()};

        int producers = 8;
        int batches = 25;
        int perBatch = 20;
        AtomicInteger viaHttp = new AtomicInteger();
        AtomicInteger retries = new AtomicInteger();
        AtomicInteger inFlightAtKills = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        List<Future<?>> running = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            String producer = "k-" + p;
            boolean toOther = p % 4 != 0; // most push to the server that gets killed
            running.add(pool.submit(() -> {
                for (int seq = 0; seq < batches; seq++) {
                    String body = batch(producer, seq, perBatch);
                    for (int attempt = 0; ; attempt++) {
                        if (attempt > 0) {
                            retries.incrementAndGet();
                        }
                        // A batch that failed on the other server is re-sent to it (restarted) or, every other time,
                        // to this server over HTTP.
                        if (toOther && attempt % 2 == 0) {
                            try {
                                long committed = other[0].push(producer, seq, body).get(20, TimeUnit.SECONDS);
                                assertThat(committed).isGreaterThanOrEqualTo(seq);
                                break;
                            } catch (Exception lost) {
                                Thread.sleep(50);
                                continue;
                            }
                        }
                        Response r = as(ALICE).body(body).post(STREAMS + "/" + name + "/records");
                        viaHttp.incrementAndGet();
                        if (r.statusCode() == 200) {
                            assertThat(r.jsonPath().getLong("committed_sequence")).isGreaterThanOrEqualTo(seq);
                            break;
                        }
                        assertThat(r.statusCode()).as(r.asString()).isIn(503);
                        Thread.sleep(100);
                    }
                }
                return null;
            }));
        }
        try {
            // Kill the other server three times while producers have batches in flight with it, each time after it
            // answered some more.
            for (int kill = 0; kill < 3; kill++) {
                Other current = other[0];
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (current.acked.get() < 15 + 5 * kill && System.nanoTime() < until) {
                    Thread.sleep(20);
                }
                inFlightAtKills.addAndGet(current.waiting.size());
                current.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                other[0] = start.get();
            }
            for (Future<?> f : running) {
                f.get(600, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            other[0].process.destroyForcibly();
        }

        List<Map<String, Object>> rows = IndependentReader.rows(spec.tableLocation());
        Map<Object, Integer> counts = new HashMap<>();
        rows.forEach(r -> counts.merge(((Map<?, ?>) r.get("value")).get("id"), 1, Integer::sum));
        assertThat(counts.values()).as("each pushed row once").containsOnly(1);
        assertThat(rows).hasSize(producers * batches * perBatch);
        for (int p = 0; p < producers; p++) {
            for (int seq = 0; seq < batches; seq++) {
                assertThat(counts).containsKey("k-" + p + "-" + seq + "-0");
            }
        }
        System.out.printf("killed 3 times with %d batches in flight: %d rows, %d retries, %d pushes over HTTP%n",
                inFlightAtKills.get(), rows.size(), retries.get(), viaHttp.get());
        assertThat(inFlightAtKills.get()).as("batches were in flight when the server was killed").isPositive();
        assertThat(retries.get()).as("the kills cost retries").isPositive();
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
    }
}
