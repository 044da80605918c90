package io.tributary.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class FailureMessagesTest {

    private final Map<String, String> props = Map.of(
            "bootstrap.servers", "b1:9092",
            "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" "
                    + "password=\"hunter22\";",
            "ssl.keystore.password", "ks-secret");

    @Test
    void namesTheCauseAndNeverASecret() {
        String auth = FailureMessages.describe(new KafkaException("poll failed",
                new SaslAuthenticationException("bad credentials for password hunter22")), props);
        assertThat(auth).startsWith("Kafka authentication failed").doesNotContain("hunter22").contains("***");

        String unreachable = FailureMessages.describe(new TimeoutException("Timeout expired"), props);
        assertThat(unreachable).startsWith("cannot reach Kafka at b1:9092");

        String storage = FailureMessages.describe(new RuntimeException("PUT failed; keystore ks-secret",
                new java.io.IOException("connection refused")), props);
        assertThat(storage).startsWith("writing the ingestion table failed: connection refused")
                .doesNotContain("ks-secret");
    }
}
