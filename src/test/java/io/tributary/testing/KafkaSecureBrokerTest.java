package io.tributary.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker harness itself: every listener accepts its client setup, and a wrong password is refused. */
class KafkaSecureBrokerTest {

    @TempDir
    static Path dir;
    static KafkaSecureBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = KafkaSecureBroker.start(dir);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("secure", 1, (short) 1))).all().get();
        }
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    @Test
    void everySetupReachesTheBroker() {
        for (String setup : List.of("PLAINTEXT", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "SASL_SSL SCRAM-SHA-512",
                "MTLS")) {
            try (var consumer = consumer(broker.clientProperties(setup))) {
                assertThat(consumer.listTopics(Duration.ofSeconds(20))).as(setup).containsKey("secure");
            }
        }
    }

    @Test
    void aWrongPasswordIsRefused() {
        try (var consumer = consumer(broker.wrongPassword("SCRAM-SHA-256"))) {
            assertThatThrownBy(() -> consumer.listTopics(Duration.ofSeconds(20)))
                    .isInstanceOf(SaslAuthenticationException.class);
        }
    }

    private static KafkaConsumer<String, String> consumer(Map<String, String> props) {
        Map<String, Object> p = new HashMap<>(props);
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }
}
