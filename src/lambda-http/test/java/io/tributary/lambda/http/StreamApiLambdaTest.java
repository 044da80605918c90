package io.tributary.lambda.http;

import io.tributary.lambda.RegisteredStreams;
import io.tributary.lambda.mappings.FakeAwsControlPlane;
import io.tributary.lambda.mappings.FakeLambda;
import io.tributary.lambda.mappings.MappingRecords;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineControl;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.service.ConnectionService;
import io.tributary.testing.Api;
import io.tributary.testing.ApiGatewayHttpApi;
import io.tributary.testing.StreamRequests;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.lambda.model.CreateEventSourceMappingRequest;

/**
 * stream-api through the Lambda HTTP path: API Gateway v2 events (with the authorizer's identity) posted to Quarkus's
 * mock event server, and the Lambda PipelineControl over fake AWS control-plane clients. The server's API test suite
 * (io.tributary.api) runs in this build too, through the same path (io.tributary.testing.ApiGatewayHttpApi); these
 * tests cover what is the function's own.
 */
@Tag("quarkus")
@QuarkusTest
@QuarkusTestResource(FakeAwsControlPlane.class)
class StreamApiLambdaTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STREAMS = "/api/2.0/feature-engineering/streams";

    @Inject
    StreamDirectory directory;
    @Inject
    ConnectionService connections;
    @Inject
    Tables tables;
    @Inject
    Instance<PipelineControl> pipelines;
    @Inject
    LambdaPipelines lambdaPipelines;
    @Inject
    MappingRecords records;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void startRecordsTheMappingsAndDeleteOverHttpRemovesThemWithTheStream() throws Throwable {
        RegisteredStreams.connection(connections, "api-test-kafka");
        String definition = "{\"name\":\"main.api.tx\","
                + "\"source_config\":{\"kafka_stream_config\":{\"subscription_mode\":{\"subscribe\":\"tx-eu,tx-us\"}}},"
                + "\"connection_config\":{\"uc_connection_name\":\"api-test-kafka\"},"
                + "\"schema_config\":{\"direct_schemas\":{\"payload_schema\":{\"json_schema\":\"{\\\"type\\\":\\\"string\\\"}\"}}},"
                + "\"ingestion_config\":{\"ingestion_destination\":{\"delta_table_name\":\"main.api.tx_ingestion\"}}}";
        PipelineSpec spec = RegisteredStreams.register(directory, tables, "api-test-kafka", "api", "tx", definition,
                "NOT_CONFIGURED", Instant.now().truncatedTo(ChronoUnit.MILLIS),
                Map.of(new PartitionKey("tx-eu", 0), 0L, new PartitionKey("tx-us", 0), 0L));
        int before = FakeAwsControlPlane.LAMBDA.mappings.size();

        // The registry starts every PipelineControl (the API tests add a recording one): on Lambda, LambdaPipelines.
        assertThat(pipelines.stream()).anyMatch(LambdaPipelines.class::isInstance);
        lambdaPipelines.start(spec);

        assertThat(FakeAwsControlPlane.LAMBDA.mappings.size() - before).isEqualTo(2);
        assertThat(FakeAwsControlPlane.LAMBDA.aliases).contains("stream-" + spec.streamId());
        assertThat(lambdaPipelines.mappingIds(spec.streamId())).hasSize(2)
                .allSatisfy(id -> assertThat(FakeAwsControlPlane.LAMBDA.live).containsKey(id));

        JsonNode got = call("GET", STREAMS + "/main.api.tx", null, "root");
        assertThat(got.get("statusCode").asInt()).isEqualTo(200);
        JsonNode stream = JSON.readTree(got.get("body").asText());
        assertThat(stream.get("stream_id").asText()).isEqualTo(spec.streamId());
        assertThat(stream.get("name").asText()).isEqualTo("main.api.tx");

        JsonNode list = call("GET", STREAMS + "?catalog_name=main", "catalog_name=main", "root");
        assertThat(list.get("statusCode").asInt()).isEqualTo(200);
        assertThat(JSON.readTree(list.get("body").asText()).get("streams").findValuesAsText("name"))
                .contains("main.api.tx");

        List<String> ids = lambdaPipelines.mappingIds(spec.streamId());
        JsonNode deleted = call("DELETE", STREAMS + "/main.api.tx", null, "root");
        assertThat(deleted.get("statusCode").asInt()).isEqualTo(200);
        assertThat(FakeAwsControlPlane.LAMBDA.deleted).containsAll(ids);
        assertThat(FakeAwsControlPlane.LAMBDA.aliases).doesNotContain("stream-" + spec.streamId());
        assertThat(lambdaPipelines.mappingIds(spec.streamId())).isEmpty();
        assertThat(call("GET", STREAMS + "/main.api.tx", null, "root").get("statusCode").asInt()).isEqualTo(404);
    }

    @Test
    void withoutAnAuthorizerIdentityTheCallerIsUnauthenticated() throws Exception {
        JsonNode response = call("GET", STREAMS + "?catalog_name=main", "catalog_name=main", null);
        assertThat(response.get("statusCode").asInt()).isEqualTo(401);
        assertThat(JSON.readTree(response.get("body").asText()).get("error_code").asText()).isEqualTo("UNAUTHENTICATED");
    }

    @Test
    void aMissingStreamIsNotFound() throws Exception {
        JsonNode response = call("GET", STREAMS + "/main.api.nothing", null, "root");
        assertThat(response.get("statusCode").asInt()).isEqualTo(404);
        assertThat(JSON.readTree(response.get("body").asText()).get("error_code").asText())
                .isEqualTo("RESOURCE_DOES_NOT_EXIST");
    }

    @Test
    void theServerApiSuiteReachesTheFunctionAsApiGatewayEvents() {
        assertThat(Api.THROUGH_LAMBDA).isTrue();
        long before = ApiGatewayHttpApi.eventsPosted();
        Api.as(Api.ALICE).get("/api/2.0/connections").then().statusCode(200);
        assertThat(ApiGatewayHttpApi.eventsPosted()).isEqualTo(before + 1);
        // The same request without the authorizer's context (the event server wraps plain HTTP requests itself): the
        // bearer token alone names nobody on Lambda.
        given().header("Authorization", "Bearer " + Api.ALICE).get("/api/2.0/connections").then().statusCode(401)
                .body("error_code", org.hamcrest.Matchers.equalTo("UNAUTHENTICATED"));
    }

    @Test
    void aPatternStreamMapsTheTopicsMatchingAtCreateAndDeleteRemovesThem() throws Exception {
        String connection = Api.unique("pattern-kafka");
        createConnection(connection);
        String prefix = "pat-" + Long.toString(System.nanoTime(), 36);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(prefix + "-a", 2, (short) 1),
                    new NewTopic(prefix + "-b", 1, (short) 1), new NewTopic(prefix + "-bb", 1, (short) 1),
                    new NewTopic("x" + prefix + "-a", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        String name = "main." + Api.unique("pat") + ".s";
        ObjectNode body = StreamRequests.with(StreamRequests.valid(name, connection, prefix + "-a"),
                "source_config.kafka_stream_config.subscription_mode",
                StreamRequests.json("{\"subscribe_pattern\": \"" + prefix + "-(a|b|c)\"}"));

        String id = Api.as(Api.ALICE).body(body.toString()).post(STREAMS).then().statusCode(200)
                .body("ingestion_status.partitions", org.hamcrest.Matchers.hasSize(3))
                .extract().path("stream_id");

        // One mapping per topic matching the whole pattern now, on the stream's alias; -bb and x...-a do not match.
        List<MappingRecords.Mapping> recorded = records.mappings(id);
        assertThat(recorded).extracting(MappingRecords.Mapping::topic).containsExactly(prefix + "-a", prefix + "-b");
        for (MappingRecords.Mapping m : recorded) {
            CreateEventSourceMappingRequest request = FakeAwsControlPlane.LAMBDA.request(m.id());
            assertThat(request.topics()).containsExactly(m.topic());
            assertThat(request.functionName()).isEqualTo(FakeLambda.INGEST + ":stream-" + id);
            assertThat(request.selfManagedEventSource().endpoints().values()).singleElement()
                    .isEqualTo(List.of(bootstrap.split(",")));
            assertThat(FakeAwsControlPlane.LAMBDA.live).containsKey(m.id());
        }
        assertThat(FakeAwsControlPlane.LAMBDA.aliases).contains("stream-" + id);

        Api.as(Api.ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
        assertThat(FakeAwsControlPlane.LAMBDA.deleted).containsAll(recorded.stream().map(MappingRecords.Mapping::id)
                .toList());
        assertThat(FakeAwsControlPlane.LAMBDA.live).doesNotContainKeys(recorded.stream()
                .map(MappingRecords.Mapping::id).toArray(String[]::new));
        assertThat(FakeAwsControlPlane.LAMBDA.aliases).doesNotContain("stream-" + id);
        assertThat(records.mappings(id)).isEmpty();
    }

    @Test
    void aPatternMatchingNoTopicYetIsCreatedWithItsAliasAndNoMapping() {
        String connection = Api.unique("pattern-kafka");
        createConnection(connection);
        String name = "main." + Api.unique("pat") + ".s";
        ObjectNode body = StreamRequests.with(StreamRequests.valid(name, connection, "tx"),
                "source_config.kafka_stream_config.subscription_mode",
                StreamRequests.json("{\"subscribe_pattern\": \"" + Api.unique("none") + "-.*\"}"));
        int before = FakeAwsControlPlane.LAMBDA.mappings.size();

        String id = Api.as(Api.ALICE).body(body.toString()).post(STREAMS).then().statusCode(200)
                .body("ingestion_status.partitions", org.hamcrest.Matchers.hasSize(0))
                .extract().path("stream_id");

        assertThat(FakeAwsControlPlane.LAMBDA.mappings).hasSize(before);
        assertThat(FakeAwsControlPlane.LAMBDA.aliases).contains("stream-" + id);
        assertThat(records.patternStreams()).contains(id); // the schedule maps topics that start to match
        Api.as(Api.ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
        assertThat(records.patternStreams()).doesNotContain(id);
        assertThat(FakeAwsControlPlane.LAMBDA.aliases).doesNotContain("stream-" + id);
    }

    private void createConnection(String connection) {
        Api.as(Api.ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then()
                .statusCode(200);
    }

    /** Posts an API Gateway HTTP API (payload 2.0) event; {@code subject} is the JWT authorizer's sub claim. */
    private static JsonNode call(String method, String pathAndQuery, String query, String subject) throws Exception {
        String path = pathAndQuery.contains("?") ? pathAndQuery.substring(0, pathAndQuery.indexOf('?')) : pathAndQuery;
        ObjectNode event = JSON.createObjectNode();
        event.put("version", "2.0");
        event.put("routeKey", "ANY /api/{proxy+}");
        event.put("rawPath", path);
        event.put("rawQueryString", query == null ? "" : query);
        if (query != null) {
            ObjectNode params = event.putObject("queryStringParameters");
            for (String pair : query.split("&")) {
                String[] kv = pair.split("=", 2);
                params.put(kv[0], kv[1]);
            }
        }
        event.putObject("headers").put("accept", "application/json").put("host", "api.example.com");
        ObjectNode context = event.putObject("requestContext");
        context.put("requestId", "test-" + System.nanoTime());
        context.put("stage", "$default");
        context.putObject("http").put("method", method).put("path", path).put("protocol", "HTTP/1.1")
                .put("sourceIp", "127.0.0.1");
        if (subject != null) {
            context.putObject("authorizer").putObject("jwt").putObject("claims").put("sub", subject);
        }
        event.put("isBase64Encoded", false);
        String response = given().contentType("application/json").body(JSON.writeValueAsString(event))
                .when().post("/_lambda_").then().extract().asString();
        return JSON.readTree(response);
    }
}
