package io.tributary.lambda;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.tributary.testing.S3ProxyServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;

/**
 * A function with its warehouse on S3, as deployed ({@code TRIBUTARY_WAREHOUSE=s3://...}): a real
 * S3-compatible server (S3Proxy, the server tests' {@link S3ProxyServer}) holds the tables, reached path-style through
 * {@code tributary.s3-endpoint} with credentials from the AWS default chain.
 */
public class S3Warehouse implements QuarkusTestProfile {
    public static final String BUCKET = "warehouse";
    public static final String PREFIX = "tables";

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(Server.class));
    }

    /** Starts S3Proxy before the function and stops it after the profile's tests. */
    public static class Server implements QuarkusTestResourceLifecycleManager {
        public static volatile S3ProxyServer s3;

        @Override
        public Map<String, String> start() {
            try {
                s3 = S3ProxyServer.start(Files.createTempDirectory("tributary-function-s3-")).exportCredentials();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            s3.createBucket(BUCKET);
            return Map.of(
                    "tributary.warehouse", "s3://" + BUCKET + "/" + PREFIX,
                    "tributary.s3-endpoint", s3.endpoint(),
                    "tributary.s3-region", S3ProxyServer.REGION);
        }

        @Override
        public void stop() {
            if (s3 != null) {
                s3.close();
            }
        }
    }
}
