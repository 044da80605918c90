package io.tributary.backfill;

import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tributary.delta.IndependentReader;
import io.tributary.delta.Tables;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC §11.1 "the same backfill and deduplication": a direct stream with the Spark-written tx_history as its backfill
 * source and {@code value.transaction_id} as its deduplication column. Pushed rows overlap the history, the server's
 * schedule merges it (one commit, the pushed rows kept, the history's rows not pushed added once), and pushes after
 * the merge are still exactly once: the merge keeps the producers' positions.
 */
@Tag("quarkus")
@QuarkusTest
class DirectStreamBackfillTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final List<String> TX_ID = List.of("value.transaction_id");

    @Inject
    Tables tables;

    static String push(long sequence, String... idAndTime) {
        StringBuilder records = new StringBuilder();
        for (int i = 0; i < idAndTime.length; i += 2) {
            records.append(i == 0 ? "" : ", ").append("{\"key\": \"s-").append(idAndTime[i])
                    .append("\", \"value\": {\"transaction_id\": \"").append(idAndTime[i])
                    .append("\", \"amount\": 1, \"currency\": \"EUR\"}, \"timestamp\": \"").append(idAndTime[i + 1])
                    .append("\"}");
        }
        return "{\"producer_id\": \"shop\", \"sequence\": " + sequence + ", \"records\": [" + records + "]}";
    }

    @Test
    void theScheduleMergesTheBackfillIntoADirectStreamAndPushesStayExactlyOnce() {
        String schema = unique("dbf");
        String source = tables.defaultLocation("main", schema, "tx_history");
        BackfillFixtures.copy("tx_history", Path.of(source.replaceFirst("^file:", "")).getParent());
        String name = "main." + schema + ".tx";
        ObjectNode body = new ObjectMapper().createObjectNode();
        body.put("name", name);
        body.putObject("source_config").putObject("direct_source_config");
        body.putObject("schema_config").putObject("direct_schemas").putObject("payload_schema").put("json_schema",
                "{\"type\": \"object\", \"properties\": {\"transaction_id\": {\"type\": \"string\"}, "
                        + "\"amount\": {\"type\": \"integer\"}, \"currency\": {\"type\": \"string\"}}}");
        ObjectNode ingestion = body.putObject("ingestion_config");
        ingestion.putObject("ingestion_destination").put("delta_table_name", name + "_ingestion");
        ingestion.putObject("backfill_source").put("delta_table_name", "main." + schema + ".tx_history");
        ingestion.putArray("deduplication_columns").add("value.transaction_id");
        as(ROOT).body(body.toString()).post(STREAMS).then().statusCode(200)
                .body("backfill_status.state", equalTo("WAITING_FOR_OVERLAP"));
        String location = tables.defaultLocation("main", schema, "tx_ingestion");

        // From 23:30 on: overlapping the history (to 00:59) by 89 minutes; tx-3 is in the history too.
        long pushed = as(ROOT).body(push(0, "tx-3", "2025-12-31T23:30:00Z", "tx-new", "2026-01-01T02:00:00Z"))
                .post(STREAMS + "/" + name + "/records").then().statusCode(200).extract().jsonPath()
                .getLong("table_version");
        // At the push's version: the schedule checks every second and may merge before a scan of the latest could.
        List<Map<String, Object>> before = KernelScan.rows(location, pushed);
        assertThat(before).hasSize(2);

        JsonPath stream = await("the schedule completes the backfill").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> as(ROOT).get(STREAMS + "/" + name).then().statusCode(200).extract().jsonPath(),
                        s -> "COMPLETED".equals(s.getString("backfill_status.state")));
        assertThat(stream.getBoolean("backfill_status.forced")).isFalse();
        assertThat(stream.getString("backfill_status.ingestion_min_timestamp")).startsWith("2025-12-31T23:30:00");
        List<Map<String, Object>> expected = BackfillFixtures.referenceMerge(before, KernelScan.rows(source), TX_ID,
                BackfillFixtures::txFromHistory);
        List<Map<String, Object>> merged = KernelScan.rows(location);
        assertThat(merged).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(merged).filteredOn(r -> "backfill".equals(r.get("record_source"))).isNotEmpty();
        assertThat(stream.getLong("backfill_status.rows_merged")).isEqualTo(expected.size() - before.size());
        long mergedVersion = IndependentReader.version(location);

        // The merge kept the producer's position: a retry writes nothing, the next batch lands once.
        as(ROOT).body(push(0, "tx-3", "2025-12-31T23:30:00Z", "tx-new", "2026-01-01T02:00:00Z"))
                .post(STREAMS + "/" + name + "/records").then().statusCode(200).body("committed_sequence", equalTo(0));
        assertThat(IndependentReader.version(location)).isEqualTo(mergedVersion);
        as(ROOT).body(push(1, "tx-later", "2026-01-01T03:00:00Z")).post(STREAMS + "/" + name + "/records").then()
                .statusCode(200).body("committed_sequence", equalTo(1));
        List<Map<String, Object>> after = IndependentReader.rows(location);
        assertThat(after).hasSize(expected.size() + 1);
        List<Object> ids = new ArrayList<>();
        after.stream().map(r -> (Map<?, ?>) r.get("value")).filter(v -> v != null)
                .forEach(v -> ids.add(v.get("transaction_id")));
        assertThat(ids).doesNotHaveDuplicates().contains("tx-later", "tx-new", "tx-3");
        as(ROOT).delete(STREAMS + "/" + name).then().statusCode(200);
    }
}
