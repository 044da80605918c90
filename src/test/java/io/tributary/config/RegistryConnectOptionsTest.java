package io.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** The registry's TLS settings, as Quarkus's pool reads them, reach the connections the process opens itself. */
class RegistryConnectOptionsTest {

    private static Config config(Map<String, String> settings) {
        return new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(settings, "test", 300)).build();
    }

    private static PgConnectOptions url() {
        return PgConnectOptions.fromUri("postgresql://proxy.example:5432/tributary");
    }

    @Test
    void terraformsSettingsAskForTls() {
        PgConnectOptions options = RegistryConnectOptions.withTls(url(),
                config(Map.of("quarkus.datasource.reactive.postgresql.ssl-mode", "require")));
        assertThat(options.getSslMode()).isEqualTo(SslMode.REQUIRE);
        assertThat(options.isTrustAll()).isFalse();
        assertThat(options.getHost()).isEqualTo("proxy.example");
    }

    @Test
    void trustSettingsAndHostnameVerificationFollow() {
        PgConnectOptions options = RegistryConnectOptions.withTls(url(), config(Map.of(
                "quarkus.datasource.reactive.postgresql.ssl-mode", "VERIFY-FULL",
                "quarkus.datasource.reactive.trust-certificate-pem", "true",
                "quarkus.datasource.reactive.trust-certificate-pem.certs", "/etc/rds/global-bundle.pem",
                "quarkus.datasource.reactive.hostname-verification-algorithm", "HTTPS")));
        assertThat(options.getSslMode()).isEqualTo(SslMode.VERIFY_FULL);
        assertThat(((PemTrustOptions) options.getTrustOptions()).getCertPaths())
                .isEqualTo(List.of("/etc/rds/global-bundle.pem"));
        assertThat(options.getHostnameVerificationAlgorithm()).isEqualTo("HTTPS");
    }

    @Test
    void withoutSettingsNothingChanges() {
        PgConnectOptions options = RegistryConnectOptions.withTls(url(), config(Map.of()));
        assertThat(options.getSslMode()).isEqualTo(SslMode.DISABLE);
        assertThat(options.isTrustAll()).isFalse();
    }
}
