package io.tributary.lambda.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.service.ConnectionService;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * By-hand benchmark, not part of the suite (no *Test name): the warm ingest invocation for a ~6 MB Kafka event, timed
 * from posting the event to Quarkus's mock event server (InvokedFunctionEventServer, invoking the stream's alias) to
 * receiving the function's result: the runtime's hand-over of the event, parsing, decoding, the Parquet write and the
 * Delta commit. Run with
 * {@code ./mvnw -o verify -Dfunction=ingest -Dtest=WarmIngestBench -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("quarkus")
@QuarkusTest
@QuarkusTestResource(InvokedFunctionEventServer.Resource.class)
class WarmIngestBench {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final int PARTITIONS = 6;
    private static final int RECORDS = 30_000;
    private static final String ALIAS_ARN = "arn:aws:lambda:eu-west-1:123456789012:function:tributary-ingest:"
            + StreamAlias.PREFIX;

    @Inject
    StreamDirectory directory;
    @Inject
    ConnectionService connections;
    @Inject
    Tables tables;
    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @ConfigProperty(name = InvokedFunctionEventServer.URL)
    String invokeUrl;

    @Test
    void warmInvocationOfASixMegabyteEvent() throws Throwable {
        IngestFixtures.connection(connections, "bench-kafka", bootstrap);
        Map<PartitionKey, Long> start = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            start.put(new PartitionKey("bench", p), 0L);
        }
        PipelineSpec spec = IngestFixtures.stream(directory, tables, "bench-kafka", "bench", "b",
                "{\"subscribe\":\"bench\"}", start);
        List<Long> millis = new ArrayList<>();
        // A warm function has served many events; later rounds show the JIT-compiled steady state.
        int rounds = Integer.getInteger("bench.rounds", 6);
        for (int round = 0; round < rounds; round++) {
            byte[] event = event(round).getBytes(StandardCharsets.UTF_8);
            // A plain HTTP client: RestAssured renders a byte[] body through Groovy, which took up to half of the
            // measured time for a 7 MB event before.
            HttpRequest request = HttpRequest.newBuilder(URI.create(invokeUrl))
                    .header(InvokedFunctionEventServer.INVOKED_ARN, ALIAS_ARN + spec.streamId())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(event)).build();
            long t0 = System.nanoTime();
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            assertThat(JsonPath.from(response.body()).getLong("rows_added")).isEqualTo(RECORDS);
            System.out.printf("BENCH round %d: event %.2f MB, %d records, %d ms%s%n", round, event.length / 1e6,
                    RECORDS, ms, round == 0 ? " (first invocation: opens the table, JIT)" : "");
            if (round > 0) {
                millis.add(ms);
            }
        }
        System.out.printf("BENCH warm invocations through the mock event server (ms): %s%n", millis);
    }

    private static String event(int round) {
        List<IngestFixtures.Rec> records = new ArrayList<>(RECORDS);
        int perPartition = RECORDS / PARTITIONS;
        for (int p = 0; p < PARTITIONS; p++) {
            for (int i = 0; i < perPartition; i++) {
                long offset = (long) round * perPartition + i;
                records.add(new IngestFixtures.Rec("bench", p, offset, 1_700_000_000_000L + offset,
                        "key-" + p + "-" + offset, "{\"id\":\"tx-" + p + "-" + offset + "-abcdefghijklmnopqrstuvwxyz\","
                                + "\"amount\":" + (offset % 1000) + ".25}"));
            }
        }
        return IngestFixtures.mskEvent(records);
    }
}
