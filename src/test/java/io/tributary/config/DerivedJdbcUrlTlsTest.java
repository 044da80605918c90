package io.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.tributary.testing.TlsOnlyPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The JDBC URL derived from the registry's reactive settings (migrations, write locks) must connect wherever the
 * reactive pool does. A registry checked as AWS documents for RDS, {@code ssl-mode=verify-full} with the CA as a PEM file
 * ({@code QUARKUS_DATASOURCE_REACTIVE_TRUST_CERTIFICATE_PEM}/{@code _CERTS}), gave pgjdbc {@code sslmode=verify-full}
 * alone: it looked for {@code ~/.postgresql/root.crt} and the server stopped at its migrations.
 */
class DerivedJdbcUrlTlsTest {

    /** The JDBC URL {@link DerivedJdbcUrl} derives from {@code settings}. */
    static String derived(Map<String, String> settings) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(settings, "test", 300))
                .withInterceptors(new DerivedJdbcUrl()).build();
        return config.getValue("quarkus.datasource.jdbc.url", String.class);
    }

    private static int selectOne(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void aVerifyFullRegistryWithItsCaAsAPemFileIsReachedByTheDerivedJdbcUrl() throws Exception {
        TlsOnlyPostgres db = TlsOnlyPostgres.shared();
        String url = derived(Map.of(
                "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + db.port() + "/postgres",
                "quarkus.datasource.reactive.postgresql.ssl-mode", "verify-full",
                "quarkus.datasource.reactive.trust-certificate-pem", "true",
                "quarkus.datasource.reactive.trust-certificate-pem.certs", db.certificate().toString()));
        assertThat(url).contains("sslmode=verify-full").contains("sslrootcert=");
        assertThat(selectOne(url)).isEqualTo(1);
    }

    @Test
    void aRegistryTrustedWithoutACheckIsReachedByTheDerivedJdbcUrl() throws Exception {
        TlsOnlyPostgres db = TlsOnlyPostgres.shared();
        String url = derived(Map.of(
                "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + db.port() + "/postgres",
                "quarkus.datasource.reactive.postgresql.ssl-mode", "verify-ca",
                "quarkus.datasource.reactive.trust-all", "true"));
        assertThat(selectOne(url)).isEqualTo(1);
    }

    @Test
    void aUrlThatNamesItsOwnTrustKeepsIt() {
        String url = derived(Map.of(
                "quarkus.datasource.reactive.url", "postgresql://h/d?sslrootcert=/own.pem",
                "quarkus.datasource.reactive.postgresql.ssl-mode", "verify-full",
                "quarkus.datasource.reactive.trust-certificate-pem", "true",
                "quarkus.datasource.reactive.trust-certificate-pem.certs", "/other.pem"));
        assertThat(url).isEqualTo("jdbc:postgresql://h/d?sslrootcert=/own.pem&sslmode=verify-full");
    }
}
