package io.tributary.lambda.backfill;

import io.tributary.lambda.PackagedFunction;
import io.tributary.lambda.RegistryRows;
import io.tributary.lambda.mappings.FakeAwsEndpoints;
import static org.assertj.core.api.Assertions.assertThat;

import io.restassured.path.json.JsonPath;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.SourceRecord;
import io.tributary.testing.S3ProxyServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * The packaged backfill function ({@code function.zip}: the JVM build here, the native binary in the native
 * workflow), started as a process ({@link PackagedFunction}) with its warehouse on S3 (S3Proxy, as deployed) and
 * invoked with the schedule's constant input through the Lambda runtime API this test serves: a due backfill whose
 * source is the Spark-written tx_history fixture (bench/backfill/fixtures: checkpoint, deletion vector) is merged,
 * its status saved in the registry, and the ingestion table's small files compacted into one; every row is read back
 * from S3 with Delta Kernel's scan. The stream is registered the way stream-api leaves it ({@link RegistryRows});
 * nothing is injected, so the test runs unchanged against the native binary. BackfillHandlerTest covers the same
 * cases (and vacuum) in the test JVM.
 */
class BackfillFunctionIT {
    private static final String SCHEDULE_INPUT = "{\"version\":\"0\",\"source\":\"tributary.scheduler\","
            + "\"detail-type\":\"Tributary Backfill Check\",\"detail\":{}}";
    private static final String ARN = "arn:aws:lambda:eu-west-1:123456789012:function:tributary-backfill";
    private static final String BUCKET = "warehouse";
    private static final String PAYLOAD_SCHEMA = "{\"type\": \"object\", \"properties\": {\"transaction_id\": "
            + "{\"type\": \"string\"}, \"amount\": {\"type\": \"integer\"}, \"currency\": {\"type\": \"string\"}}}";
    private static S3ProxyServer s3;
    private static FakeAwsEndpoints aws;

    @RegisterExtension
    static final PackagedFunction FUNCTION = new PackagedFunction(() -> {
        try {
            s3 = S3ProxyServer.start(Files.createTempDirectory("tributary-backfill-it-")).exportCredentials();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        s3.createBucket(BUCKET);
        aws = FakeAwsEndpoints.start(BackfillFunctionIT.FUNCTION.deploymentSecrets());
        Map<String, String> settings = new HashMap<>(aws.settings());
        settings.put("tributary.warehouse", "s3://" + BUCKET + "/tables");
        settings.put("tributary.s3-endpoint", s3.endpoint());
        settings.put("tributary.s3-region", S3ProxyServer.REGION);
        // The function's S3 client takes its credentials from the default chain, as on Lambda (its role).
        settings.put("AWS_ACCESS_KEY_ID", S3ProxyServer.ACCESS_KEY);
        settings.put("AWS_SECRET_ACCESS_KEY", S3ProxyServer.SECRET_KEY);
        return settings;
    });

    @AfterAll
    static void stop() {
        if (aws != null) {
            aws.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void theScheduledEventMergesTheSparkWrittenSourceAndCompactsOnS3() throws Exception {
        Tables tables = RegistryRows.tables();
        RegistryRows.connection("it-kafka", "127.0.0.1:9");
        String history = tables.defaultLocation("main", "bf", "tx_history");
        assertThat(history).startsWith("s3://" + BUCKET + "/tables/");
        putFixture("tx_history", history);
        RegistryRows.Registered stream = RegistryRows.stream(tables, "it-kafka", "bf", "tx", "tx", PAYLOAD_SCHEMA,
                "\"backfill_source\":{\"delta_table_name\":\"main.bf.tx_history\"},"
                        + "\"deduplication_columns\":[\"value.transaction_id\"]",
                "WAITING_FOR_OVERLAP", Map.of(new PartitionKey("tx", 0), 0L));
        // Two appends (two small files). The earliest stream row is 23:30; tx_history reaches 00:59: an overlap of
        // more than the default hour.
        ingest(tables, stream, new SourceRecord("tx", 0, 0, Instant.parse("2025-12-31T23:30:00Z").toEpochMilli(),
                bytes("s-1"), bytes("{\"transaction_id\":\"tx-3\",\"amount\":1,\"currency\":\"EUR\"}")));
        ingest(tables, stream, new SourceRecord("tx", 0, 1, Instant.parse("2026-01-01T00:10:00Z").toEpochMilli(),
                        bytes("s-2"), bytes("{\"transaction_id\":\"tx-45\",\"amount\":2,\"currency\":\"EUR\"}")),
                new SourceRecord("tx", 0, 2, Instant.parse("2026-01-01T02:00:00Z").toEpochMilli(),
                        bytes("s-3"), bytes("{\"transaction_id\":\"tx-new\",\"amount\":3,\"currency\":\"EUR\"}")));
        assertThat(tables.dataFiles(stream.location())).hasSize(2);

        JsonPath summary = JsonPath.from(FUNCTION.invoke(ARN, SCHEDULE_INPUT, Duration.ofMinutes(5)).ok().body());
        assertThat(summary.getInt("backfills_checked")).isEqualTo(1);
        assertThat(summary.getInt("backfills_completed")).isEqualTo(1);
        assertThat(summary.getInt("backfill_errors")).isZero();
        assertThat(summary.getInt("tables_compacted")).isEqualTo(1);
        assertThat(summary.getInt("maintenance_errors")).isZero();

        // tx_history has 45 non-NULL transaction ids left after its deletes (tx-13, tx-26, tx-39 gone), two of them
        // streamed already (tx-3, tx-45), and its NULL ids collapse to one row: 45 - 3 - 2 + 1 new rows.
        Map<String, Object> row = RegistryRows.streamRow(stream.id());
        assertThat(row.get("backfill_state")).isEqualTo("COMPLETED");
        assertThat(row.get("rows_merged")).isEqualTo(41L);
        List<Map<String, Object>> rows = new ArrayList<>();
        try (TableRows read = tables.read(stream.location())) {
            read.forEachRemaining(rows::add);
        }
        assertThat(rows.stream().filter(r -> "stream".equals(r.get("record_source"))).map(r -> r.get("key")))
                .containsExactlyInAnyOrder("s-1", "s-2", "s-3");
        List<Object> merged = rows.stream().filter(r -> "backfill".equals(r.get("record_source")))
                .map(r -> ((Map<?, ?>) r.get("value")).get("transaction_id")).map(Object.class::cast).toList();
        assertThat(merged).hasSize(41).doesNotHaveDuplicates().doesNotContain("tx-3", "tx-45", "tx-13")
                .contains((Object) null);
        // Compaction rewrote the stream's files and the merge's into one, changing no row; all of it is on S3.
        assertThat(tables.dataFiles(stream.location())).singleElement()
                .satisfies(f -> assertThat(f.path()).startsWith("s3://" + BUCKET + "/"));

        FUNCTION.assertPolledByTheFunction();
    }

    private static void ingest(Tables tables, RegistryRows.Registered stream, SourceRecord... records) {
        MicroBatch.Builder batch = MicroBatch.builder();
        for (SourceRecord r : records) {
            batch.add(r);
        }
        assertThat(OpenedIngester.open(tables, stream.spec()).ingester().ingest(batch.build())).isPresent();
    }

    /** Puts a Spark-written fixture of src/test/resources/backfill-fixtures at an s3:// location. */
    private static void putFixture(String name, String location) throws Exception {
        String key = location.substring(("s3://" + BUCKET + "/").length());
        Path from = Path.of(BackfillFunctionIT.class.getResource("/backfill-fixtures/" + name).toURI());
        try (Stream<Path> files = Files.walk(from); var client = s3.client()) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                client.putObject(b -> b.bucket(BUCKET).key(key + "/" + from.relativize(p).toString().replace('\\', '/')),
                        RequestBody.fromFile(p));
            }
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
