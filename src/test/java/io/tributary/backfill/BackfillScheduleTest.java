package io.tributary.backfill;


import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/**
 * The server's schedule completes a backfill end to end: a stream created through the API with the Spark-written
 * tx_history as its backfill source, stream rows committed to its ingestion table as the pipeline commits them, then
 * the schedule merges, the registry shows COMPLETED, and the table read back with Kernel is the reference merge.
 */
@Tag("quarkus")
@QuarkusTest
class BackfillScheduleTest {
    private static final String STREAMS = "/api/2.0/feature-engineering/streams";
    private static final List<String> TX_ID = List.of("value.transaction_id");

    @Inject
    Tables tables;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void theScheduleMergesTheBackfillAndTheStreamShowsIt() throws Exception {
        String schema = unique("bf");
        BackfillFixtures.ApiStream created = BackfillFixtures.createTxStreamWithHistory(tables, bootstrap, schema);
        String source = created.source();
        String topic = created.topic();
        String name = created.name();

        // What the ingest pipeline would have committed: rows from 23:30 on, overlapping the source by 89 minutes.
        String ingestion = tables.defaultLocation("main", schema, "tx_ingestion");
        DeltaTable table = tables.open(ingestion);
        PartitionKey p0 = new PartitionKey(topic, 0);
        long from = table.positions().get(p0);
        List<GenericRecord> rows = List.of(
                BackfillFixtures.txRow(table.rowSchema(), "s-1", "tx-3", Instant.parse("2025-12-31T23:30:00Z"), topic, from),
                BackfillFixtures.txRow(table.rowSchema(), "s-2", "tx-new", Instant.parse("2026-01-01T02:00:00Z"), topic, from + 1));
        long committed = table.commit(List.of(table.writeDataFile(rows)), Map.of(p0, new OffsetRange(from, from + 2)));
        // At the commit's version: the schedule checks every second and may merge before a scan of the latest could.
        List<Map<String, Object>> before = KernelScan.rows(ingestion, committed);

        JsonPath stream = await("the schedule completes the backfill").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> as(ROOT).get(STREAMS + "/" + name).then().statusCode(200).extract().jsonPath(),
                        s -> "COMPLETED".equals(s.getString("backfill_status.state")));

        assertThat(stream.getBoolean("backfill_status.forced")).isFalse();
        assertThat(stream.getString("backfill_status.ingestion_min_timestamp")).startsWith("2025-12-31T23:30:00");
        assertThat(stream.getString("backfill_status.backfill_max_timestamp")).startsWith("2026-01-01T00:59:00.000123");
        assertThat(stream.getString("backfill_status.completed_at")).isNotNull();
        List<Map<String, Object>> expected = BackfillFixtures.referenceMerge(before, KernelScan.rows(source), TX_ID,
                BackfillFixtures::txFromHistory);
        assertThat(KernelScan.rows(ingestion)).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(stream.getLong("backfill_status.rows_merged")).isEqualTo(expected.size() - before.size());
        as(ROOT).delete(STREAMS + "/" + name).then().statusCode(200);
    }
}
