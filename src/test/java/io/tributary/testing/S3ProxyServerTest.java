package io.tributary.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** What other suites rely on: conditional creates like AWS, and objects surviving a restart. */
class S3ProxyServerTest {
    @TempDir
    Path dir;

    @Test
    void conditionalPutAndRestart() {
        try (S3ProxyServer s3 = S3ProxyServer.start(dir)) {
            s3.createBucket("bucket");
            try (S3Client client = s3.client()) {
                client.putObject(b -> b.bucket("bucket").key("a/1.json").ifNoneMatch("*"), RequestBody.fromString("one"));
                assertThatThrownBy(() -> client.putObject(b -> b.bucket("bucket").key("a/1.json").ifNoneMatch("*"),
                        RequestBody.fromString("two")))
                        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
            }
            s3.stop();
            s3.start();
            try (S3Client client = s3.client()) {
                assertThat(client.getObjectAsBytes(b -> b.bucket("bucket").key("a/1.json")).asUtf8String()).isEqualTo("one");
            }
            assertThat(s3.keys("bucket", "a/")).containsExactly("a/1.json");
        }
    }
}
