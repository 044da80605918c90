package io.tributary.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.List;
import java.util.Map;

/**
 * A test profile whose registry database accepts TLS connections only, as Terraform's RDS Proxy does
 * ({@code require_tls = true}), and whose settings are a deployment's: the reactive URL without parameters and
 * {@code quarkus.datasource.reactive.postgresql.ssl-mode=require} beside it (terraform/functions.tf). The server
 * certificate is self-signed, so the reactive client is told to trust it ({@code trust-all}); pgjdbc's
 * {@code sslmode=require} does not check it.
 */
public class RegistryOverTls implements QuarkusTestProfile {

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(Resource.class));
    }

    public static class Resource implements QuarkusTestResourceLifecycleManager {
        private static Map<String, String> config;

        @Override
        public synchronized Map<String, String> start() {
            if (config == null) {
                config = startDatabase();
            }
            return config;
        }

        @Override
        public void stop() {
            // one database for the JVM, like TributaryServices'
        }

        private static Map<String, String> startDatabase() {
            TlsOnlyPostgres db = TlsOnlyPostgres.shared();
            return Map.of(
                    "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + db.port() + "/postgres",
                    "quarkus.datasource.reactive.postgresql.ssl-mode", "require",
                    "quarkus.datasource.reactive.trust-all", "true",
                    "quarkus.datasource.username", "postgres",
                    "quarkus.datasource.password", "postgres");
        }
    }
}
