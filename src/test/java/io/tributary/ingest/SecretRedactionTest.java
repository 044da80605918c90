package io.tributary.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretRedactionTest {

    @Test
    void secretValuesAndJaasPasswordsAreRedactedWhateverTheKeysCase() {
        Map<String, String> props = Map.of(
                "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                        + "username=\"app\" password=\"hunter22\";",
                "SSL.KEYSTORE.PASSWORD", "store-pass",
                "basic.auth.user.secret", "s3cr3t",
                "bootstrap.servers", "broker:9092");
        String message = SecretRedaction.redact("login with hunter22 failed; keystore store-pass; key s3cr3t; "
                + "at broker:9092", props);
        assertThat(message).doesNotContain("hunter22", "store-pass", "s3cr3t").contains("broker:9092", "***");
    }

    @Test
    void aThrowableWithoutMessageIsNamedByItsType() {
        assertThat(SecretRedaction.message(new IllegalStateException(), Map.of())).isEqualTo("IllegalStateException");
    }
}
