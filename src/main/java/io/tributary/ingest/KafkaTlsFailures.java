package io.tributary.ingest;

import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * What a failed TLS handshake with Kafka means for the user, for the API's create errors and the pipelines'
 * {@code state_message} alike. Kafka reports it as an {@link SslAuthenticationException}, a kind of authentication
 * failure, whose own message ("SSL handshake failed") would send the user to check the password.
 */
public final class KafkaTlsFailures {
    private KafkaTlsFailures() {}

    /** Whether {@code failure} (or a cause) is a failed TLS handshake. */
    public static boolean isTls(Throwable failure) {
        return has(failure, SslAuthenticationException.class);
    }

    /**
     * A certificate path that cannot be built or validated is a broker certificate that the stream's CAs did not sign
     * (or that expired): the one case worth naming outright. The text names no setting's value, so no secret.
     */
    public static String describe(Throwable failure, String servers) {
        if (has(failure, CertPathBuilderException.class) || has(failure, CertPathValidatorException.class)) {
            return "the TLS certificate of Kafka at " + servers + " is not trusted: no CA in the stream's truststore "
                    + "signed it, or it expired (set connection_config.direct_mtls_config.mtls_config."
                    + "truststore_location to a truststore with the CA that signed the brokers' certificates; a "
                    + "connection trusts the JVM's default CAs)";
        }
        return "the TLS handshake with Kafka at " + servers + " failed (check the truststore's CA, the host names in "
                + "the brokers' certificates and the client certificate)";
    }

    private static boolean has(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }
}
