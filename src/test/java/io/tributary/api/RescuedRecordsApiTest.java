package io.tributary.api;

import static io.tributary.api.StreamsFixture.createdName;
import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static io.tributary.testing.StreamRequests.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.path.json.JsonPath;
import io.tributary.delta.Tables;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.SourceRecord;
import io.tributary.registry.directory.StreamDirectory;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The rescued-records API (SPEC "Rescued records") on the real database, broker and warehouse; in the stream-api
 * function build the same requests go through the Lambda HTTP path. Rows are written the way both ingest runtimes
 * write them ({@link OpenedIngester}), so the test does not depend on which runtime consumes.
 */
@Tag("quarkus")
@QuarkusTest
class RescuedRecordsApiTest {
    static final String STREAMS = StreamsFixture.STREAMS;

    @Inject
    Tables tables;
    @Inject
    StreamDirectory directory;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    static String connection;
    static String topic;

    @BeforeEach
    void setUp() throws Exception {
        if (connection != null) {
            return;
        }
        connection = unique("kafka");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        topic = unique("rescue");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    @Test
    void aNonBooleanRescueSettingIsA400NamingTheField() {
        for (Object bad : List.of("yes", 1, "true", List.of(true))) {
            ObjectNode body = with(valid(createdName("bad"), connection, topic),
                    "ingestion_config.rescue_undecodable", bad);
            as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(400)
                    .body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                    .body("message", startsWith("ingestion_config.rescue_undecodable"));
        }
    }

    @Test
    void rescuedRecordsAreCountedListedInPagesAndReplayedWithTheStreamsPrivileges() throws Throwable {
        String name = createdName("rescuing");
        ObjectNode body = with(valid(name, connection, topic), "ingestion_config.rescue_undecodable", true);
        String id = as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(200)
                .body("ingestion_config.rescue_undecodable", equalTo(true))
                .extract().path("stream_id");
        as(ALICE).get(STREAMS + "/" + name).then().statusCode(200)
                .body("ingestion_status.rescued_records", equalTo(0));
        as(ALICE).get("/api/2.1/unity-catalog/tables/" + name + "_ingestion").then().statusCode(200)
                .body("columns[-1].name", equalTo("_rescued_data"))
                .body("columns[-1].type_text", equalTo("struct<key:binary,value:binary,error:string,side:string>"));

        // Two of five values are not JSON of the schema: NULL, counted, and rescued with their bytes.
        PipelineSpec spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(id)).orElseThrow();
        assertThat(spec.rescueUndecodable()).isTrue();
        MicroBatch.Builder batch = MicroBatch.builder();
        String[] values = {"{\"id\":\"a\",\"amount\":1}", "{not json", "{\"id\":\"c\",\"amount\":3}",
                "{\"id\":\"d\",\"amount\":\"four\"}", "{\"id\":\"e\",\"amount\":5}"};
        for (int i = 0; i < values.length; i++) {
            batch.add(new SourceRecord(topic, 0, i, 1_700_000_000_000L + i, ("k" + i).getBytes(StandardCharsets.UTF_8),
                    values[i].getBytes(StandardCharsets.UTF_8)));
        }
        assertThat(OpenedIngester.open(tables, spec).ingester().ingest(batch.build())).isPresent();

        // (decode_failures here is the server's live pipeline's count, which did not ingest these rows itself.)
        as(ALICE).get(STREAMS + "/" + name).then().statusCode(200)
                .body("ingestion_status.rescued_records", equalTo(2));
        JsonPath all = as(ALICE).get(STREAMS + "/" + name + "/rescued").then().statusCode(200)
                .body("rescued_records", hasSize(2)).body("$", not(hasKey("next_page_token")))
                .extract().jsonPath();
        assertThat(all.getList("rescued_records.offset", Integer.class)).containsExactly(1, 3);
        assertThat(all.getString("rescued_records[0].topic")).isEqualTo(topic);
        assertThat(all.getInt("rescued_records[0].partition")).isZero();
        assertThat(all.getString("rescued_records[0].timestamp")).isEqualTo("2023-11-14T22:13:20.001Z");
        assertThat(decode(all.getString("rescued_records[0].value_base64"))).isEqualTo(values[1]);
        assertThat(decode(all.getString("rescued_records[0].key_base64"))).isEqualTo("k1");
        assertThat(decode(all.getString("rescued_records[1].value_base64"))).isEqualTo(values[3]);
        assertThat(all.getString("rescued_records[0].error")).isNotBlank();
        assertThat(all.getString("rescued_records[1].error")).isNotBlank();

        String token = as(ALICE).queryParam("max_results", 1).get(STREAMS + "/" + name + "/rescued").then()
                .statusCode(200).body("rescued_records.offset", equalTo(List.of(1)))
                .extract().path("next_page_token");
        as(ALICE).queryParam("max_results", 1).queryParam("page_token", token).get(STREAMS + "/" + name + "/rescued")
                .then().statusCode(200).body("rescued_records.offset", equalTo(List.of(3)))
                .body("$", not(hasKey("next_page_token")));
        for (String bad : List.of("0", "1001", "x")) {
            as(ALICE).queryParam("max_results", bad).get(STREAMS + "/" + name + "/rescued").then().statusCode(400)
                    .body("message", startsWith("max_results"));
        }
        as(ALICE).queryParam("page_token", "bm9wZQ").get(STREAMS + "/" + name + "/rescued").then().statusCode(400)
                .body("message", startsWith("page_token"));

        // Listing needs SELECT (or MANAGE); replaying rewrites the table, so it needs MANAGE.
        as(BOB).get(STREAMS + "/" + name + "/rescued").then().statusCode(403);
        grant("bob", "SELECT", name);
        as(BOB).get(STREAMS + "/" + name + "/rescued").then().statusCode(200).body("rescued_records", hasSize(2));
        as(BOB).post(STREAMS + "/" + name + "/rescued:replay").then().statusCode(403)
                .body("message", org.hamcrest.Matchers.containsString("MANAGE"));
        grant("bob", "MANAGE", name);
        long version = tables.open(spec.tableLocation()).status().version();
        // The stream's schema did not change: nothing decodes now, nothing is committed.
        as(BOB).post(STREAMS + "/" + name + "/rescued:replay").then().statusCode(200)
                .body("records_replayed", equalTo(0)).body("records_still_undecodable", equalTo(2))
                .body("table_version", equalTo((int) version));
        assertThat(tables.open(spec.tableLocation()).status().version()).isEqualTo(version);

        as(ALICE).post(STREAMS + "/main.nope.nope/rescued:replay").then().statusCode(404);
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
    }

    @Test
    void aStreamWithoutRescueHasNoneToListOrReplay() {
        String name = createdName("plain");
        as(ALICE).body(valid(name, connection, topic).toString()).post(STREAMS).then().statusCode(200)
                .body("ingestion_status", not(hasKey("rescued_records")));
        as(ALICE).get("/api/2.1/unity-catalog/tables/" + name + "_ingestion").then().statusCode(200)
                .body("columns.name", not(org.hamcrest.Matchers.hasItem("_rescued_data")));
        as(ALICE).get(STREAMS + "/" + name + "/rescued").then().statusCode(200).body("rescued_records", hasSize(0));
        as(ALICE).post(STREAMS + "/" + name + "/rescued:replay").then().statusCode(400)
                .body("message", startsWith("name: stream '" + name + "' does not rescue"));
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
    }

    private static void grant(String principal, String privilege, String stream) {
        as(ALICE).body("{\"changes\": [{\"principal\": \"" + principal + "\", \"add\": [\"" + privilege + "\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + stream + "_ingestion").then().statusCode(200);
    }

    private static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }
}
