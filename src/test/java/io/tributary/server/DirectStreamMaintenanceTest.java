package io.tributary.server;

import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.tributary.delta.IndependentReader;
import io.tributary.delta.Tables;
import io.tributary.maintenance.TableMaintenance;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC §11.1 "the same maintenance": the server's maintenance run compacts a direct stream's small files (one per push
 * commit) and keeps its producers' positions, so pushes after the compaction are still exactly once: a retry of a
 * batch committed before it writes nothing, the next sequence lands once, a gap is still refused.
 */
@Tag("quarkus")
@QuarkusTest
class DirectStreamMaintenanceTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";

    @Inject
    Tables tables;
    @Inject
    MaintenanceRuns runs;

    static String push(String producer, long sequence) {
        return "{\"producer_id\": \"" + producer + "\", \"sequence\": " + sequence + ", \"records\": ["
                + "{\"key\": \"k\", \"value\": {\"id\": \"" + producer + "-" + sequence + "\"}}]}";
    }

    @Test
    void compactionKeepsTheProducersSequences() {
        String schema = unique("dm");
        String name = "main." + schema + ".events";
        as(ROOT).body("{\"name\": \"" + name + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + "\"{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"id\\\":{\\\"type\\\":\\\"string\\\"}}}\"}}}, "
                + "\"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + name
                + "_ingestion\"}}}").post(STREAMS).then().statusCode(200);
        String location = tables.defaultLocation("main", schema, "events_ingestion");
        // Each push awaited: three commits, three small files.
        for (int seq = 0; seq < 3; seq++) {
            as(ROOT).body(push("m", seq)).post(STREAMS + "/" + name + "/records").then().statusCode(200);
        }
        assertThat(tables.dataFiles(location)).hasSize(3);

        TableMaintenance.Summary summary = runs.runAll();

        assertThat(summary.tablesCompacted()).isPositive();
        assertThat(tables.dataFiles(location)).as("compacted").hasSize(1);
        assertThat(ids(location)).containsExactlyInAnyOrder("m-0", "m-1", "m-2");
        long compacted = IndependentReader.version(location);

        // A producer that did not see its last answer re-sends it after the compaction: acknowledged, nothing written.
        as(ROOT).body(push("m", 2)).post(STREAMS + "/" + name + "/records").then().statusCode(200)
                .body("committed_sequence", equalTo(2));
        assertThat(IndependentReader.version(location)).isEqualTo(compacted);
        as(ROOT).body(push("m", 4)).post(STREAMS + "/" + name + "/records").then().statusCode(409);
        as(ROOT).body(push("m", 3)).post(STREAMS + "/" + name + "/records").then().statusCode(200)
                .body("committed_sequence", equalTo(3));
        assertThat(ids(location)).containsExactlyInAnyOrder("m-0", "m-1", "m-2", "m-3");
        as(ROOT).get(STREAMS + "/" + name).then().statusCode(200)
                .body("ingestion_status.producers.find { it.producer_id == 'm' }.committed_sequence", equalTo(3))
                .body("ingestion_status.rows_ingested", equalTo(4));
        as(ROOT).delete(STREAMS + "/" + name).then().statusCode(200);
    }

    private static List<Object> ids(String location) {
        List<Object> ids = new ArrayList<>();
        for (Map<String, Object> row : IndependentReader.rows(location)) {
            ids.add(((Map<?, ?>) row.get("value")).get("id"));
        }
        return ids;
    }
}
