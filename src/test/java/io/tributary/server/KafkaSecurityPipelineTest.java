package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaSecureBroker;
import io.tributary.testing.KafkaTestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every connection security setup, end to end: a pipeline reads through it into a table. */
class KafkaSecurityPipelineTest {

    @TempDir
    static Path dir;
    static KafkaSecureBroker broker;
    static KafkaTestSupport topics;
    static Tables tables;

    @BeforeAll
    static void start() throws Exception {
        broker = KafkaSecureBroker.start(dir.resolve("broker"));
        topics = new KafkaTestSupport(broker.bootstrapServers());
        tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
    }

    @AfterAll
    static void stop() {
        topics.close();
        broker.close();
    }

    private StreamPipeline pipeline(String name, Map<String, String> kafkaProperties, String topic) {
        topics.createTopic(topic, 1);
        PipelineSpec spec = KafkaStreamFixture.create(tables, name, new Subscription.Topics(List.of(topic)),
                new SchemaSource.Plain(), new SchemaSource.Plain(), topics.endOffsets(topic), kafkaProperties);
        return KafkaStreamFixture.pipeline(tables, spec, KafkaStreamFixture.FAST);
    }

    @ParameterizedTest
    @ValueSource(strings = {"PLAINTEXT", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "SASL_SSL SCRAM-SHA-512", "MTLS"})
    void ingestsThrough(String setup) {
        String name = "sec_" + setup.toLowerCase().replaceAll("[^a-z0-9]", "_");
        StreamPipeline pipeline = pipeline(name, broker.clientProperties(setup), name);
        pipeline.start();
        try {
            for (int i = 0; i < 10; i++) {
                topics.send(name, 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            topics.flush();
            String location = pipeline.spec().tableLocation();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> KafkaTestSupport.rows(tables, location).size() >= 10);
            assertThat(KafkaTestSupport.rows(tables, location)).extracting(r -> r.get("value"))
                    .containsExactly("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9");
            assertThat(pipeline.status().state()).isEqualTo(IngestionStatus.State.RUNNING);
        } finally {
            pipeline.stop();
        }
    }

    @Test
    void aWrongPasswordFailsTheStreamWithAReasonAndNoSecret() {
        StreamPipeline pipeline = pipeline("sec_wrong", broker.wrongPassword("SCRAM-SHA-512"), "sec-wrong");
        pipeline.start();
        try {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                IngestionStatus s = pipeline.status();
                assertThat(s.state()).isEqualTo(IngestionStatus.State.FAILED);
                assertThat(s.stateMessage()).startsWith("Kafka authentication failed").contains("SCRAM-SHA-512")
                        .doesNotContain("not-the-password");
            });
        } finally {
            pipeline.stop();
        }
    }

    /**
     * A truststore with another CA than the one that signed the broker: the stream fails at once (no hang, no retry
     * loop left hidden behind RUNNING), and the message says that the broker's certificate is not trusted, names the
     * brokers and leaks no store password.
     */
    @ParameterizedTest
    @ValueSource(strings = {"SASL_SSL SCRAM-SHA-512", "MTLS"})
    void aBrokerCertificateOfAnotherCaFailsTheStreamClearly(String setup) {
        String name = "sec_ca_" + setup.toLowerCase().replaceAll("[^a-z0-9]", "_");
        Map<String, String> properties = broker.otherCa(setup);
        StreamPipeline pipeline = pipeline(name, properties, name);
        pipeline.start();
        try {
            topics.send(name, 0, null, "v".getBytes(StandardCharsets.UTF_8));
            topics.flush();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                IngestionStatus s = pipeline.status();
                assertThat(s.state()).isEqualTo(IngestionStatus.State.FAILED);
                assertThat(s.stateMessage())
                        .startsWith("the TLS certificate of Kafka at " + properties.get("bootstrap.servers")
                                + " is not trusted")
                        .contains("truststore")
                        .doesNotContain(broker.storePassword()).doesNotContain(KafkaSecureBroker.PASSWORD);
            });
            assertThat(KafkaTestSupport.rows(tables, pipeline.spec().tableLocation())).isEmpty();
        } finally {
            pipeline.stop();
        }
    }
}
