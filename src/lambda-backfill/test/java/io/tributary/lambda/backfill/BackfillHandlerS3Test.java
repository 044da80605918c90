package io.tributary.lambda.backfill;

import io.tributary.lambda.S3Warehouse;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * BackfillHandlerTest's cases with the warehouse on S3 (S3Proxy), as deployed: the source table and the ingestion
 * table are S3 objects, the merge and the compaction read and write them there, and every row is read back from S3.
 */
@Tag("quarkus")
@QuarkusTest
@TestProfile(S3Warehouse.class)
class BackfillHandlerS3Test extends BackfillHandlerTest {

    @Override
    protected Path tableFile(String location, String name) {
        return S3Warehouse.Server.s3.objectFile(S3Warehouse.BUCKET, key(location) + "/" + name);
    }

    /** Through the S3 API, so S3Proxy knows the object; its backing file then carries the age. */
    @Override
    protected Path putFile(String location, String name, Path content) {
        S3Warehouse.Server.s3.client().putObject(b -> b.bucket(S3Warehouse.BUCKET).key(key(location) + "/" + name),
                RequestBody.fromFile(content));
        return tableFile(location, name);
    }

    private static String key(String location) {
        String prefix = "s3://" + S3Warehouse.BUCKET + "/";
        assertThat(location).startsWith(prefix + S3Warehouse.PREFIX + "/");
        return location.substring(prefix.length());
    }

    @Override
    protected void putFixture(String name, String location) throws IOException, URISyntaxException {
        String prefix = "s3://" + S3Warehouse.BUCKET + "/";
        assertThat(location).startsWith(prefix + S3Warehouse.PREFIX + "/");
        String key = location.substring(prefix.length());
        Path from = fixture(name);
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                S3Warehouse.Server.s3.client().putObject(b -> b.bucket(S3Warehouse.BUCKET)
                        .key(key + "/" + from.relativize(p).toString().replace('\\', '/')), RequestBody.fromFile(p));
            }
        }
    }
}
