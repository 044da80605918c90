package io.tributary.api;

import static io.tributary.api.StreamsFixture.STREAMS;
import static io.tributary.api.StreamsFixture.createdName;
import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.StreamRequests.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code GET …/streams/{name}/history} (SPEC 8): the rows per minute the console charts, counted from the commits
 * of the stream's table; a compaction of the same rows adds none.
 */
@Tag("quarkus")
@QuarkusTest
class StreamHistoryApiTest {
    @Inject
    Tables tables;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void rowsPerMinuteCountWhatTheTableCommitted() throws Exception {
        StreamsFixture.Source source = StreamsFixture.create(bootstrap);
        String name = createdName("hist");
        as(ALICE).body(valid(name, source.connection(), source.topic()).toString()).post(STREAMS).then()
                .statusCode(200);
        String location = tables.defaultLocation("main", name.split("\\.")[1], "hist_ingestion");
        DeltaTable table = tables.open(location);
        PartitionKey p1 = new PartitionKey(source.topic(), 1);
        table.commit(List.of(table.writeDataFile(rows(table.rowSchema(), source.topic(), 0, 3))),
                Map.of(p1, new OffsetRange(0, 3)));
        table.commit(List.of(table.writeDataFile(rows(table.rowSchema(), source.topic(), 3, 7))),
                Map.of(p1, new OffsetRange(3, 7)));

        JsonPath history = as(ALICE).queryParam("minutes", 5).get(STREAMS + "/" + name + "/history").then()
                .statusCode(200).body("minutes", equalTo(5)).body("complete", equalTo(true))
                .body("table_version", equalTo(2)).extract().jsonPath();
        List<Map<String, Object>> perMinute = history.getList("rows_per_minute");
        assertThat(perMinute).hasSize(5);
        long rows = perMinute.stream().mapToLong(m -> ((Number) m.get("rows")).longValue()).sum();
        long commits = perMinute.stream().mapToLong(m -> ((Number) m.get("commits")).longValue()).sum();
        assertThat(rows).isEqualTo(7);
        assertThat(commits).isEqualTo(3); // the create's commit (no rows) and the two appends
        Instant last = Instant.parse((String) perMinute.get(4).get("minute"));
        assertThat(last).isBeforeOrEqualTo(Instant.now()).isAfter(Instant.now().minusSeconds(120));

        as(ALICE).get(STREAMS + "/" + name + "/history").then().statusCode(200).body("minutes", equalTo(60));
        as(ALICE).queryParam("minutes", 0).get(STREAMS + "/" + name + "/history").then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE")).body("message", containsString("minutes"));
        as(ALICE).queryParam("minutes", "x").get(STREAMS + "/" + name + "/history").then().statusCode(400)
                .body("message", containsString("minutes"));
        as(BOB).get(STREAMS + "/" + name + "/history").then().statusCode(403);
        as(ALICE).get(STREAMS + "/main.nope.nope/history").then().statusCode(404);
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
    }

    private static List<GenericRecord> rows(Schema schema, String topic, long from, long to) {
        List<GenericRecord> out = new ArrayList<>();
        for (long o = from; o < to; o++) {
            GenericRecord r = new GenericData.Record(schema);
            r.put("key", "k" + o);
            r.put("value", null);
            r.put("stream_record_timestamp", Instant.now());
            r.put("record_source", "stream");
            r.put("kafka_topic", topic);
            r.put("kafka_partition", 1);
            r.put("kafka_offset", o);
            out.add(r);
        }
        return out;
    }
}
