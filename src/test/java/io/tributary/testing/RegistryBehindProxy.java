package io.tributary.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * A test profile whose server reaches the registry database through a {@link TcpProxy}, so a test can take the
 * database away ({@link #proxy()}) and give it back while the server runs.
 */
public class RegistryBehindProxy implements QuarkusTestProfile {
    private static volatile TcpProxy proxy;

    public static TcpProxy proxy() {
        return proxy;
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(Resource.class));
    }

    public static class Resource implements QuarkusTestResourceLifecycleManager {
        @Override
        public synchronized Map<String, String> start() {
            // The shared services (started once per JVM); the proxy fronts their database.
            Map<String, String> services = new TributaryServices().start();
            URI url = URI.create(services.get("quarkus.datasource.reactive.url"));
            try {
                if (proxy == null) {
                    proxy = new TcpProxy(url.getPort());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            proxy.mode(TcpProxy.Mode.FORWARD);
            String db = "127.0.0.1:" + proxy.port() + url.getPath();
            // A socket timeout shorter than the tests' outages, so the partition's effect on JDBC users is seen.
            return Map.of(
                    "quarkus.datasource.reactive.url", "postgresql://" + db,
                    "quarkus.datasource.jdbc.url", "jdbc:postgresql://" + db,
                    "quarkus.datasource.jdbc.additional-jdbc-properties.socketTimeout", "4");
        }

        @Override
        public void stop() {
            // the proxy lives as long as the JVM, like the services behind it
        }
    }
}
