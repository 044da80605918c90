package io.tributary.registry.service;

import io.tributary.registry.request.ConnectionSpec;
import io.tributary.registry.request.StreamDefinition;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Maps a connection (SPEC 2.2) or a direct mTLS config (SPEC 2.3) to Kafka client properties. The values hold
 * decrypted passwords: never log the map.
 *
 * <p>MSK IAM ({@code credential}) is written as configuration only: the {@code software.amazon.msk.auth.iam} classes
 * named here come from the aws-msk-iam-auth library, which is not a dependency of this build; a runtime that connects
 * to MSK with IAM must add it. MSK IAM needs SASL over TLS, so {@code security.protocol} is SASL_SSL unless set.
 */
public final class KafkaClientConfig {
    public static final String IAM_LOGIN_MODULE = "software.amazon.msk.auth.iam.IAMLoginModule";
    public static final String IAM_CALLBACK_HANDLER = "software.amazon.msk.auth.iam.IAMClientCallbackHandler";

    private KafkaClientConfig() {}

    public static Map<String, String> forConnection(ConnectionSpec.Options options, String password) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", options.bootstrapServers());
        if (options.credential() != null) {
            props.put("security.protocol", orDefault(options.securityProtocol(), "SASL_SSL"));
            props.put("sasl.mechanism", "AWS_MSK_IAM");
            props.put("sasl.jaas.config", IAM_LOGIN_MODULE + " required;");
            props.put("sasl.client.callback.handler.class", IAM_CALLBACK_HANDLER);
        } else if (options.saslMechanism() != null) {
            String mechanism = options.saslMechanism().toUpperCase(java.util.Locale.ROOT);
            props.put("security.protocol", orDefault(options.securityProtocol(), "SASL_SSL"));
            props.put("sasl.mechanism", mechanism);
            String module = mechanism.equals("PLAIN")
                    ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
            props.put("sasl.jaas.config", module + " required username=\"" + jaasQuote(options.user())
                    + "\" password=\"" + jaasQuote(password) + "\";");
        } else {
            props.put("security.protocol", orDefault(options.securityProtocol(), "PLAINTEXT"));
        }
        return props;
    }

    /** @param passwords decrypted keystore, key and truststore passwords; absent ones are null */
    public static Map<String, String> forMtls(StreamDefinition.DirectMtlsConfig mtls, String keystorePassword,
            String keyPassword, String truststorePassword) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", mtls.bootstrapServers());
        props.put("security.protocol", "SSL");
        StreamDefinition.MtlsConfig c = mtls.mtlsConfig();
        putIfPresent(props, "ssl.keystore.location", c.keystoreLocation());
        putIfPresent(props, "ssl.keystore.password", keystorePassword);
        putIfPresent(props, "ssl.key.password", keyPassword);
        putIfPresent(props, "ssl.truststore.location", c.truststoreLocation());
        putIfPresent(props, "ssl.truststore.password", truststorePassword);
        return props;
    }

    private static void putIfPresent(Map<String, String> props, String key, String value) {
        if (value != null) {
            props.put(key, value);
        }
    }

    private static String orDefault(String value, String fallback) {
        return value == null ? fallback : value.toUpperCase(java.util.Locale.ROOT);
    }

    /** JAAS option values are double-quoted; a quote or backslash inside must be escaped. */
    private static String jaasQuote(String s) {
        return s == null ? "" : s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
