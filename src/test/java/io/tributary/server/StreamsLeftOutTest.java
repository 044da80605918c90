package io.tributary.server;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.json;
import static io.tributary.testing.StreamRequests.valid;
import static io.tributary.testing.StreamRequests.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.junit.QuarkusTest;
import io.tributary.testing.KafkaTestSupport;
import jakarta.inject.Inject;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A server that (re)starts, or catches up after its notification session was lost, while a stream cannot be resolved
 * (a secret it reads was deleted, to be put again) leaves the stream out rather than hold up the others. It must not
 * stay out: once the secret is back the stream runs on this server too, and meanwhile this server says why it does not
 * run it instead of reporting RUNNING from the table's log.
 */
@Tag("quarkus")
@QuarkusTest
class StreamsLeftOutTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final String AVRO = "{\"type\":\"record\",\"name\":\"Tx\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}";

    @Inject
    ServerPipelines pipelines;
    @Inject
    StreamCatchUp catchUp;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void aStreamLeftOutAtCatchUpForAMissingSecretStartsOnceTheSecretIsPutAgain() throws Throwable {
        HttpServer registry = registry();
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            Secret secret = secretAndConnection(registry);
            String name = "main." + unique("s").replace('-', '_') + ".left_out";
            String id = registryStream(topics, name, secret.connection());

            // As if this server restarted, or lost its notification session, while the secret was deleted: its
            // catch-up cannot resolve the stream (the other servers' pipelines keep running with what they read).
            pipelines.stopHere(id);
            Thread.sleep(5);
            secret.delete();
            catchUp.catchUp(System.currentTimeMillis());
            assertThat(pipelines.runsHere(id)).as("left out while its secret is missing").isFalse();
            as(ALICE).get(STREAMS + "/" + name).then().statusCode(200).body("state", equalTo("FAILED"))
                    .body("state_message", containsString("schema_registry_api_secret"));

            secret.put();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> assertThat(pipelines.runsHere(id)).as("started once the secret is back")
                            .isTrue());
            as(ALICE).get(STREAMS + "/" + name).then().statusCode(200).body("state", equalTo("RUNNING"));
            as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
        } finally {
            registry.stop(0);
        }
    }

    /**
     * A stream running here whose secret is deleted keeps running with the spec it has; a catch-up meanwhile (the
     * notification session lost and back) must still start what this server missed. Before, asking the registry for
     * the running stream's spec failed the whole catch-up, again at every reconnect, so the server followed no other
     * server's starts and stops until the secret was back.
     */
    @Test
    void aRunningStreamWhoseSecretIsMissingDoesNotHoldUpTheCatchUp() throws Throwable {
        HttpServer registry = registry();
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            Secret secret = secretAndConnection(registry);
            String schema = unique("s").replace('-', '_');
            String needsSecret = registryStream(topics, "main." + schema + ".needs_secret", secret.connection());
            String plainConnection = unique("kafka-plain");
            as(ALICE).body("{\"name\": \"" + plainConnection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                    + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then()
                    .statusCode(200);
            String topic = unique("missed");
            topics.createTopic(topic, 1);
            String missed = as(ALICE).body(valid("main." + schema + ".missed", plainConnection, topic).toString())
                    .post(STREAMS).then().statusCode(200).extract().jsonPath().getString("stream_id");

            // Another server's start this server missed, and the secret of a stream running here deleted.
            pipelines.stopHere(missed);
            Thread.sleep(5);
            secret.delete();
            catchUp.catchUp(System.currentTimeMillis());
            assertThat(pipelines.runsHere(missed)).as("the missed start caught up").isTrue();
            assertThat(pipelines.runsHere(needsSecret)).as("still registered: not stopped").isTrue();

            secret.put();
            as(ALICE).delete(STREAMS + "/main." + schema + ".missed").then().statusCode(200);
            as(ALICE).delete(STREAMS + "/main." + schema + ".needs_secret").then().statusCode(200);
        } finally {
            registry.stop(0);
        }
    }

    /** A secret (the schema registry's API secret) and a connection that reads it. */
    private record Secret(String scope, String connection) {
        void put() {
            as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"sr\", \"string_value\": \"sr-secret\"}")
                    .post("/api/2.0/secrets/put").then().statusCode(200);
        }

        void delete() {
            as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"sr\"}").post("/api/2.0/secrets/delete")
                    .then().statusCode(200);
        }
    }

    private Secret secretAndConnection(HttpServer registry) {
        String scope = unique("left-out");
        as(ALICE).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create").then().statusCode(200);
        String connection = unique("kafka-left-out");
        Secret secret = new Secret(scope, connection);
        secret.put();
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": {"
                + "\"bootstrap_servers\": \"" + bootstrap + "\", \"schema_registry_url\": \"http://127.0.0.1:"
                + registry.getAddress().getPort() + "\", \"schema_registry_api_key\": \"sr-key\", "
                + "\"schema_registry_api_secret\": {\"scope\": \"" + scope + "\", \"key\": \"sr\"}}}")
                .post("/api/2.0/connections").then().statusCode(200);
        return secret;
    }

    /** A stream whose payload schema is the registry's subject {@code tx-value}; it runs here once created. */
    private String registryStream(KafkaTestSupport topics, String name, String connection) {
        String topic = unique("left-out");
        topics.createTopic(topic, 1);
        String id = as(ALICE).body(with(with(valid(name, connection, topic), "schema_config.direct_schemas", null),
                "schema_config.schema_registry_config", json("{\"payload_schema_locator\": {\"confluent_schema\": "
                        + "{\"subject\": \"tx-value\"}, \"format\": \"FORMAT_AVRO\"}}")).toString())
                .post(STREAMS).then().statusCode(200).extract().jsonPath().getString("stream_id");
        assertThat(pipelines.runsHere(id)).isTrue();
        return id;
    }

    /** The Confluent registry API for one subject, {@code tx-value}, version 1, schema id 1. */
    private static HttpServer registry() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getRawPath();
            String body = path.equals("/subjects/tx-value/versions") ? "[1]"
                    : path.startsWith("/subjects/tx-value/versions/") || path.equals("/schemas/ids/1")
                            ? "{\"id\": 1, \"version\": 1, \"subject\": \"tx-value\", \"schema\": "
                                    + quote(AVRO)
                                    + "}"
                            : null;
            byte[] bytes = (body == null ? "{\"error_code\": 40401, \"message\": \"not found\"}" : body)
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
            exchange.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        return server;
    }

    private static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
