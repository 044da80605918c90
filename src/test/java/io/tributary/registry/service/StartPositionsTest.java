package io.tributary.registry.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.delta.PartitionKey;
import io.tributary.ingest.StartPositions;
import io.tributary.ingest.Subscription;
import io.tributary.registry.request.ConnectionSpec;
import io.tributary.ingest.SubscriptionTopics;
import io.tributary.server.local.EmbeddedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start positions against a real broker that requires SASL/PLAIN, through the connection-to-properties mapping. */
class StartPositionsTest {
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    @TempDir
    static Path dir;
    static EmbeddedKafka kafka;

    @BeforeAll
    static void start() throws Exception {
        // Quarkus tests in this JVM may have installed Kafka's PLAIN server provider from their own (now discarded)
        // class loader; JCA keeps the first provider of a name, so drop it and let this broker install its own.
        java.security.Security.removeProvider("Simple SASL/PLAIN Server Provider");
        kafka = EmbeddedKafka.start(dir, 0, Map.of(
                "listener.security.protocol.map", "PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
                "sasl.enabled.mechanisms", "PLAIN",
                "sasl.mechanism.inter.broker.protocol", "PLAIN",
                "listener.name.plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
                        + "password=\"admin-secret\" user_admin=\"admin-secret\" user_app=\"app-secret\";"));
        Map<String, Object> client = new HashMap<>(props("app-secret"));
        try (Admin admin = Admin.create(client)) {
            admin.createTopics(List.of(new NewTopic("orders-eu", 2, (short) 1), new NewTopic("orders-us", 1, (short) 1),
                    new NewTopic("payments", 1, (short) 1))).all().get();
        }
        try (var producer = new KafkaProducer<>(client, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>("orders-eu", 1, "k", "v")).get();
            }
            producer.send(new ProducerRecord<>("orders-us", 0, "k", "v")).get();
        }
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    static Map<String, String> props(String password) {
        return KafkaClientConfig.forConnection(new ConnectionSpec.Options(kafka.bootstrapServers(), null, "PLAIN",
                "app", password, "SASL_PLAINTEXT", null, null, null), password);
    }

    @Test
    void topicsCaptureTheEndOfEveryPartitionAndSkipTopicsThatDoNotExistYet() {
        assertThat(StartPositions.capture(props("app-secret"),
                new Subscription.Topics(List.of("orders-eu", "later-topic")), TIMEOUT)).isEqualTo(Map.of(
                        new PartitionKey("orders-eu", 0), 0L, new PartitionKey("orders-eu", 1), 3L));
    }

    @Test
    void patternsMatchWholeTopicNames() {
        assertThat(StartPositions.capture(props("app-secret"), new Subscription.Pattern("orders-.*"), TIMEOUT))
                .isEqualTo(Map.of(new PartitionKey("orders-eu", 0), 0L, new PartitionKey("orders-eu", 1), 3L,
                        new PartitionKey("orders-us", 0), 1L));
        assertThat(StartPositions.capture(props("app-secret"), new Subscription.Pattern("orders"), TIMEOUT)).isEmpty();
    }

    @Test
    void topicNamesListTheClusterAndPatternsMatchThemWhole() {
        // What AWS Lambda resolves a pattern with, at create and on the backfill schedule (PatternRefresh).
        var names = StartPositions.topicNames(props("app-secret"), TIMEOUT);
        assertThat(names).contains("orders-eu", "orders-us", "payments").noneMatch(n -> n.startsWith("__"));
        assertThat(SubscriptionTopics.matching(names, new Subscription.Pattern("orders-.*")))
                .containsExactly("orders-eu", "orders-us");
        assertThat(SubscriptionTopics.matching(names, new Subscription.Pattern("orders"))).isEmpty();
        assertThatThrownBy(() -> StartPositions.topicNames(props("wrong-password-123"), TIMEOUT))
                .isInstanceOf(StartPositions.KafkaAccessException.class).hasMessageNotContaining("wrong-password-123");
    }

    @Test
    void assignTakesOnlyTheNamedPartitions() {
        assertThat(StartPositions.capture(props("app-secret"),
                new Subscription.Assign(Map.of("orders-eu", List.of(1, 7))), TIMEOUT))
                .isEqualTo(Map.of(new PartitionKey("orders-eu", 1), 3L));
    }

    @Test
    void wrongCredentialsAreReportedWithoutThePassword() {
        assertThatThrownBy(() -> StartPositions.capture(props("wrong-password-123"),
                new Subscription.Topics(List.of("orders-eu")), TIMEOUT))
                .isInstanceOf(StartPositions.KafkaAccessException.class)
                .hasMessageContaining("rejected the credentials")
                .hasMessageNotContaining("wrong-password-123");
    }

    @Test
    void anUnreachableBrokerTimesOut() {
        Map<String, String> dead = Map.of("bootstrap.servers", "127.0.0.1:1", "security.protocol", "PLAINTEXT");
        assertThatThrownBy(() -> StartPositions.capture(dead, new Subscription.Topics(List.of("t")),
                Duration.ofSeconds(2))).isInstanceOf(StartPositions.KafkaAccessException.class)
                .hasMessageContaining("did not answer");
    }
}
