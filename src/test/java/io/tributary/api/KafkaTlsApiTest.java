package io.tributary.api;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static io.tributary.testing.StreamRequests.with;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.tributary.testing.KafkaSecureBroker;
import io.tributary.testing.KafkaTestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * TLS to Kafka is verified against the stream's CA at create, where the API reads the partitions' end offsets: the
 * right CA creates the stream, another CA is a 400 on {@code connection_config} that says the broker's certificate is
 * not trusted, names the connection or the brokers, and no password. (A running stream whose CA stops matching fails
 * with the same words in its {@code state_message}: {@code runtime.KafkaSecurityPipelineTest}.)
 */
@Tag("quarkus")
@QuarkusTest
class KafkaTlsApiTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final ObjectMapper JSON = new ObjectMapper();

    static Path dir;
    static KafkaSecureBroker broker;
    static String scope;
    static String topic;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("kafka-tls-api");
        broker = KafkaSecureBroker.start(dir);
        topic = unique("tls");
        try (KafkaTestSupport topics = new KafkaTestSupport(broker.bootstrapServers())) {
            topics.createTopic(topic, 2);
        }
    }

    /** RestAssured knows the test server's port only once a test runs, not in @BeforeAll. */
    @BeforeEach
    void secrets() {
        if (scope != null) {
            return;
        }
        scope = unique("tls");
        as(ALICE).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create").then().statusCode(200);
        as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"store\", \"string_value\": \""
                + broker.storePassword() + "\"}").post("/api/2.0/secrets/put").then().statusCode(200);
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static ObjectNode mtls(String name, Path truststore) {
        ObjectNode ref = JSON.createObjectNode().put("scope", scope).put("key", "store");
        ObjectNode config = JSON.createObjectNode();
        ObjectNode direct = config.putObject("direct_mtls_config").put("bootstrap_servers",
                broker.sslBootstrapServers());
        direct.putObject("mtls_config")
                .put("keystore_location", broker.clientKeystore().toString()).set("keystore_password_ref", ref);
        ((ObjectNode) direct.get("mtls_config")).set("key_password_ref", ref);
        ((ObjectNode) direct.get("mtls_config")).put("truststore_location", truststore.toString())
                .set("truststore_password_ref", ref);
        return with(valid(name, "unused", topic), "connection_config", config);
    }

    /** On AWS, direct_mtls_config cannot be mapped yet (event source mappings take PEM from Secrets Manager). */
    @Test
    @Tag("server-only")
    void aTruststoreWithTheBrokersCaCreatesTheStream() {
        String name = "main." + unique("tls") + ".right_ca";
        as(ALICE).body(mtls(name, broker.truststore()).toString()).post(STREAMS).then().statusCode(200)
                .body("state", equalTo("RUNNING")).body("ingestion_status.partitions", hasSize(2));
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
    }

    @Test
    void aTruststoreWithAnotherCaIsA400ThatSaysTheCertificateIsNotTrusted() {
        String name = "main." + unique("tls") + ".other_ca";
        as(ALICE).body(mtls(name, broker.otherCaTruststore()).toString()).post(STREAMS).then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", startsWith("connection_config: the TLS certificate of Kafka at "
                        + broker.sslBootstrapServers() + " is not trusted"))
                .body("message", containsString("truststore_location"))
                .body(not(containsString(broker.storePassword())));
        as(ROOT).get(STREAMS + "/" + name).then().statusCode(404);
    }

    /** A connection has no CA option: it trusts the JVM's default CAs, which did not sign this test broker. */
    @Test
    void aConnectionToABrokerOfAPrivateCaNamesTheConnection() {
        String connection = unique("tlsconn");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + broker.saslSslBootstrapServers() + "\", \"sasl_mechanism\": "
                + "\"SCRAM-SHA-512\", \"user\": \"" + KafkaSecureBroker.USER + "\", \"password\": \""
                + KafkaSecureBroker.PASSWORD + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        String name = "main." + unique("tls") + ".conn";
        as(ALICE).body(valid(name, connection, topic).toString()).post(STREAMS).then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", startsWith("connection_config: connection '" + connection
                        + "': the TLS certificate of Kafka at " + broker.saslSslBootstrapServers() + " is not trusted"))
                .body(not(containsString(KafkaSecureBroker.PASSWORD)));
        as(ROOT).get(STREAMS + "/" + name).then().statusCode(404);
    }
}
