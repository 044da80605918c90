package io.tributary.api;

import org.junit.jupiter.api.Tag;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@Tag("quarkus")
@QuarkusTest
class StreamListTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    static String catalog;
    static List<String> names = new ArrayList<>();

    /** Five streams of alice in one catalog, two schemas; bob may read two of them. */
    @BeforeEach
    void setUp() throws Exception {
        if (catalog != null) {
            return;
        }
        String connection = unique("listconn");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        String topic = unique("listed");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        String cat = unique("cat");
        for (int i = 0; i < 5; i++) {
            String name = cat + "." + (i < 3 ? "s1" : "s2") + ".stream" + i;
            as(ALICE).body(valid(name, connection, topic).toString()).post(STREAMS).then().statusCode(200);
            names.add(name);
        }
        for (String readable : List.of(names.get(1), names.get(4))) {
            as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"SELECT\"]}]}")
                    .patch("/api/2.1/unity-catalog/permissions/table/" + readable + "_ingestion").then()
                    .statusCode(200);
        }
        catalog = cat;
    }

    @Test
    void pagesWalkAllStreamsInNameOrder() {
        List<String> seen = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            var request = as(ALICE).queryParam("catalog_name", catalog).queryParam("max_results", 2);
            if (token != null) {
                request.queryParam("page_token", token);
            }
            JsonPath page = request.get(STREAMS).then().statusCode(200).extract().jsonPath();
            seen.addAll(page.getList("streams.name"));
            token = page.getString("next_page_token");
            pages++;
        } while (token != null);
        assertThat(seen).containsExactlyElementsOf(names);
        assertThat(pages).isEqualTo(3);
    }

    @Test
    void schemaFilterAndDefaultPageSize() {
        as(ALICE).queryParam("catalog_name", catalog.toUpperCase()).queryParam("schema_name", "S2").get(STREAMS)
                .then().statusCode(200).body("streams", hasSize(2)).body("next_page_token", nullValue());
        as(ALICE).queryParam("catalog_name", catalog).get(STREAMS).then().statusCode(200)
                .body("streams", hasSize(5));
    }

    @Test
    void onlyReadableStreamsAreListedAndPagesStayFull() {
        JsonPath first = as(BOB).queryParam("catalog_name", catalog).queryParam("max_results", 1).get(STREAMS)
                .then().statusCode(200).body("streams", hasSize(1)).extract().jsonPath();
        assertThat(first.getString("streams[0].name")).isEqualTo(names.get(1));
        as(BOB).queryParam("catalog_name", catalog).queryParam("max_results", 1)
                .queryParam("page_token", first.getString("next_page_token")).get(STREAMS).then().statusCode(200)
                .body("streams", hasSize(1)).body("streams[0].name", equalTo(names.get(4)))
                .body("next_page_token", nullValue());
    }

    @Test
    void includeSchemasControlsTheSchemaTexts() {
        as(ALICE).queryParam("catalog_name", catalog).queryParam("include_schemas", true).get(STREAMS).then()
                .statusCode(200).body("streams[0].schema_config.direct_schemas.payload_schema.json_schema",
                        notNullValue());
        as(ALICE).queryParam("catalog_name", catalog).queryParam("include_schemas", false).get(STREAMS).then()
                .statusCode(200).body("streams[0].schema_config.direct_schemas.payload_schema.json_schema",
                        nullValue())
                .body("streams[0].schema_config.direct_schemas.payload_schema", notNullValue());
        // Both forms come from one cached parse of the definition: the texts must come back after a list without them.
        as(ALICE).queryParam("catalog_name", catalog).queryParam("include_schemas", true).get(STREAMS).then()
                .statusCode(200).body("streams[0].schema_config.direct_schemas.payload_schema.json_schema",
                        notNullValue());
    }

    @Test
    void badParametersNameTheParameter() {
        as(ALICE).get(STREAMS).then().statusCode(400).body("message", startsWith("catalog_name:"));
        as(ALICE).queryParam("catalog_name", catalog).queryParam("max_results", 0).get(STREAMS).then()
                .statusCode(400).body("message", startsWith("max_results:"));
        as(ALICE).queryParam("catalog_name", catalog).queryParam("max_results", 1001).get(STREAMS).then()
                .statusCode(400).body("message", startsWith("max_results:"));
        as(ALICE).queryParam("catalog_name", catalog).queryParam("max_results", "many").get(STREAMS).then()
                .statusCode(400).body("message", startsWith("max_results:"));
        as(ALICE).queryParam("catalog_name", catalog).queryParam("page_token", "garbage!").get(STREAMS).then()
                .statusCode(400).body("message", startsWith("page_token:"));
        as(ALICE).queryParam("catalog_name", catalog).queryParam("include_schemas", "maybe").get(STREAMS).then()
                .statusCode(400).body("message", startsWith("include_schemas:"));
        as(ALICE).queryParam("catalog_name", "bad catalog").get(STREAMS).then().statusCode(400)
                .body("message", startsWith("catalog_name:"));
    }
}
