package io.tributary.config;

import io.vertx.core.net.PemTrustOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * Options for a reactive connection to the registry database that the process opens itself, beside Quarkus's pool
 * (the registry probe, the lookups' pools): the URL alone is not enough, since a deployment gives TLS as settings of
 * their own (Terraform: {@code QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE=require} for an RDS Proxy that takes
 * TLS connections only). So the same TLS settings Quarkus's pool reads are applied here; without them every probe was
 * refused by such a database and every API call answered 503.
 */
public final class RegistryConnectOptions {
    static final String SSL_MODE = DerivedJdbcUrl.SSL_MODE;
    static final String TRUST_ALL = "quarkus.datasource.reactive.trust-all";
    static final String TRUST_PEM = "quarkus.datasource.reactive.trust-certificate-pem";
    static final String TRUST_PEM_CERTS = "quarkus.datasource.reactive.trust-certificate-pem.certs";
    static final String HOSTNAME_VERIFICATION = "quarkus.datasource.reactive.hostname-verification-algorithm";

    private RegistryConnectOptions() {}

    /** {@code options} (from {@code quarkus.datasource.reactive.url}) with the registry's TLS settings added. */
    public static PgConnectOptions withTls(PgConnectOptions options, Config config) {
        Optional<String> sslMode = config.getOptionalValue(SSL_MODE, String.class).filter(s -> !s.isBlank());
        if (sslMode.isPresent()) {
            options.setSslMode(SslMode.of(sslMode.get().strip().toLowerCase(Locale.ROOT)));
        }
        if (config.getOptionalValue(TRUST_ALL, Boolean.class).orElse(false)) {
            options.setTrustAll(true);
        }
        if (config.getOptionalValue(TRUST_PEM, Boolean.class).orElse(false)) {
            PemTrustOptions pem = new PemTrustOptions();
            config.getOptionalValues(TRUST_PEM_CERTS, String.class).orElse(List.of()).forEach(pem::addCertPath);
            options.setPemTrustOptions(pem);
        }
        config.getOptionalValue(HOSTNAME_VERIFICATION, String.class).filter(a -> !a.isBlank())
                .filter(a -> !"NONE".equalsIgnoreCase(a)).ifPresent(options::setHostnameVerificationAlgorithm);
        return options;
    }
}
