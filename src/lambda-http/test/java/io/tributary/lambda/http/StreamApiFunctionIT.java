package io.tributary.lambda.http;

import io.tributary.lambda.PackagedFunction;
import io.tributary.lambda.mappings.FakeAwsEndpoints;
import io.tributary.lambda.mappings.FakeLambda;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tributary.testing.StreamRequests;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The packaged stream-api function ({@code function.zip}: the JVM build here, the native binary in the native
 * workflow), started as a process ({@link PackagedFunction}) and driven only with API Gateway HTTP API events (payload
 * 2.0, the JWT authorizer's identity in the request context) through the Lambda runtime API this test serves: a
 * connection and a stream created, the stream read and listed, then deleted. The function reaches the real test
 * broker for the start positions, writes the table to the warehouse, and calls the Lambda control plane, which
 * {@link FakeAwsEndpoints} serves over HTTP: the stream's alias and event source mapping are created with it and
 * removed with it. Nothing is injected, so the test runs unchanged against the native binary.
 */
class StreamApiFunctionIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STREAMS = "/api/2.0/feature-engineering/streams";
    private static final String ARN = "arn:aws:lambda:eu-west-1:123456789012:function:tributary-stream-api";
    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static FakeAwsEndpoints aws;

    @RegisterExtension
    static final PackagedFunction FUNCTION = new PackagedFunction(() -> {
        aws = FakeAwsEndpoints.start(StreamApiFunctionIT.FUNCTION.deploymentSecrets());
        Map<String, String> settings = new HashMap<>(aws.settings());
        settings.put("tributary.admins", "root");
        return settings;
    });

    @AfterAll
    static void stopAws() {
        if (aws != null) {
            aws.close();
        }
    }

    @Test
    void createGetListAndDeleteThroughApiGatewayEvents() throws Exception {
        String bootstrap = System.getProperty("kafka.bootstrap.servers");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic("it-tx", 2, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        JsonNode connection = call("POST", "/api/2.0/connections", null, "root", "{\"name\": \"it-kafka\", "
                + "\"connection_type\": \"KAFKA\", \"options\": {\"bootstrap_servers\": \"" + bootstrap + "\"}}");
        assertThat(connection.get("statusCode").asInt()).as(connection.toString()).isEqualTo(200);

        String name = "main.it_api.tx";
        JsonNode created = call("POST", STREAMS, null, "root",
                StreamRequests.valid(name, "it-kafka", "it-tx").toString());
        assertThat(created.get("statusCode").asInt()).as(created.toString()).isEqualTo(200);
        JsonNode stream = body(created);
        String id = stream.get("stream_id").asText();
        assertThat(stream.at("/ingestion_status/partitions")).hasSize(2);
        assertThat(aws.aliases).containsExactly("stream-" + id);
        assertThat(aws.mappings.values()).singleElement().satisfies(m -> {
            assertThat(m.path("FunctionName").asText()).isEqualTo(FakeLambda.INGEST + ":stream-" + id);
            assertThat(m.path("Topics").get(0).asText()).isEqualTo("it-tx");
        });

        JsonNode got = call("GET", STREAMS + "/" + name, null, "root", null);
        assertThat(got.get("statusCode").asInt()).isEqualTo(200);
        assertThat(body(got).get("stream_id").asText()).isEqualTo(id);

        JsonNode list = call("GET", STREAMS, "catalog_name=main", "root", null);
        assertThat(list.get("statusCode").asInt()).isEqualTo(200);
        assertThat(body(list).get("streams").findValuesAsText("name")).containsExactly(name);

        JsonNode anonymous = call("GET", STREAMS, "catalog_name=main", null, null);
        assertThat(anonymous.get("statusCode").asInt()).isEqualTo(401);
        assertThat(body(anonymous).get("error_code").asText()).isEqualTo("UNAUTHENTICATED");

        JsonNode deleted = call("DELETE", STREAMS + "/" + name, null, "root", null);
        assertThat(deleted.get("statusCode").asInt()).as(deleted.toString()).isEqualTo(200);
        assertThat(aws.mappings).isEmpty();
        assertThat(aws.deletedMappings).hasSize(1);
        assertThat(aws.aliases).isEmpty();
        assertThat(aws.deletedAliases).containsExactly("stream-" + id);
        JsonNode gone = call("GET", STREAMS + "/" + name, null, "root", null);
        assertThat(gone.get("statusCode").asInt()).isEqualTo(404);
        assertThat(body(gone).get("error_code").asText()).isEqualTo("RESOURCE_DOES_NOT_EXIST");

        FUNCTION.assertPolledByTheFunction();
    }

    private static JsonNode body(JsonNode response) throws Exception {
        return JSON.readTree(response.get("body").asText());
    }

    /**
     * Invokes the function with an API Gateway HTTP API (payload 2.0) event for route {@code ANY /api/{proxy+}};
     * {@code subject} is the JWT authorizer's sub claim (none: no authorizer context). Returns the function's result,
     * the payload 2.0 response.
     */
    private static JsonNode call(String method, String path, String query, String subject, String body)
            throws Exception {
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
        ObjectNode headers = event.putObject("headers").put("accept", "application/json").put("host", "api.example.com");
        event.putObject("pathParameters").put("proxy", path.substring("/api/".length()));
        ObjectNode context = event.putObject("requestContext");
        context.put("requestId", "it-" + System.nanoTime());
        context.put("routeKey", "ANY /api/{proxy+}");
        context.put("stage", "$default");
        context.putObject("http").put("method", method).put("path", path).put("protocol", "HTTP/1.1")
                .put("sourceIp", "127.0.0.1");
        if (subject != null) {
            context.putObject("authorizer").putObject("jwt").putObject("claims").put("sub", subject);
        }
        if (body != null) {
            headers.put("content-type", "application/json");
            event.put("body", body);
        }
        event.put("isBase64Encoded", false);
        return JSON.readTree(FUNCTION.invoke(ARN, event.toString(), TIMEOUT).ok().body());
    }
}
