package io.tributary.registry.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.registry.request.ConnectionSpec;
import io.tributary.registry.request.SecretRef;
import io.tributary.registry.request.StreamDefinition;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaClientConfigTest {

    private static ConnectionSpec.Options options(String credential, String mechanism, String user, String protocol) {
        return new ConnectionSpec.Options("b1:9092,b2:9092", credential, mechanism, user, null, protocol, null, null,
                null);
    }

    @Test
    void plaintextWithoutCredentials() {
        assertThat(KafkaClientConfig.forConnection(options(null, null, null, null), null)).isEqualTo(Map.of(
                "bootstrap.servers", "b1:9092,b2:9092", "security.protocol", "PLAINTEXT"));
        assertThat(KafkaClientConfig.forConnection(options(null, null, null, "SSL"), null))
                .containsEntry("security.protocol", "SSL");
    }

    @Test
    void saslMechanismsGetTheirLoginModuleWithQuotedCredentials() {
        Map<String, String> scram = KafkaClientConfig.forConnection(options(null, "SCRAM-SHA-512", "u\"ser", null),
                "p\\w\"d");
        assertThat(scram).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism",
                "SCRAM-SHA-512").containsEntry("sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\\\"ser\" "
                        + "password=\"p\\\\w\\\"d\";");
        Map<String, String> plain = KafkaClientConfig.forConnection(options(null, "PLAIN", "u", "SASL_PLAINTEXT"),
                "p");
        assertThat(plain).containsEntry("security.protocol", "SASL_PLAINTEXT")
                .containsEntry("sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
                                + "password=\"p\";");
    }

    @Test
    void mskIamIsConfigurationForTheIamLibrary() {
        Map<String, String> iam = KafkaClientConfig.forConnection(options("my-credential", null, null, null), null);
        assertThat(iam).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "AWS_MSK_IAM")
                .containsEntry("sasl.jaas.config", "software.amazon.msk.auth.iam.IAMLoginModule required;")
                .containsEntry("sasl.client.callback.handler.class",
                        "software.amazon.msk.auth.iam.IAMClientCallbackHandler");
    }

    @Test
    void mtlsUsesTheKeystoreAndTruststore() {
        var mtls = new StreamDefinition.DirectMtlsConfig("b:9093", new StreamDefinition.MtlsConfig("/k.p12",
                new SecretRef("s", "k"), null, "/t.jks", new SecretRef("s", "t")));
        assertThat(KafkaClientConfig.forMtls(mtls, "kp", null, "tp")).isEqualTo(Map.of(
                "bootstrap.servers", "b:9093", "security.protocol", "SSL",
                "ssl.keystore.location", "/k.p12", "ssl.keystore.password", "kp",
                "ssl.truststore.location", "/t.jks", "ssl.truststore.password", "tp"));
    }
}
