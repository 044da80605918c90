package io.tributary.lambda.ingest;

import io.tributary.lambda.S3Warehouse;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link IngestHandlerTest}'s cases (inherited, run again) with the warehouse on a real S3-compatible server
 * ({@link S3Warehouse}): MSK and self-managed batches land their rows, read back with Delta Kernel from S3, and a
 * redelivered batch lands once. The test below checks the tables really are objects in the bucket.
 */
@Tag("quarkus")
@QuarkusTest
@TestProfile(S3Warehouse.class)
class IngestHandlerS3Test extends IngestHandlerTest {

    @Test
    void theTableIsWrittenToTheBucketDataFilesAndLog() throws Throwable {
        String topic = topic(1);
        Stream stream = create("s3", "{\"subscribe\": \"" + topic + "\"}");
        assertThat(stream.location()).startsWith("s3://" + S3Warehouse.BUCKET + "/" + S3Warehouse.PREFIX + "/");
        produce(topic, List.of(new ProducerRecord<>(topic, 0, NOW + 3000, "x1", "{\"id\":\"x1\",\"amount\":1}")));
        String event = IngestFixtures.mskEventOf(IngestFixtures.readAll(bootstrap, topic));

        assertThat(invoke(stream.alias(), event).ok().get("rows_added")).isEqualTo(1);
        assertThat(invoke(stream.alias(), event).ok().get("rows_added")).isEqualTo(0);

        String prefix = stream.location().substring(("s3://" + S3Warehouse.BUCKET + "/").length()) + "/";
        List<String> keys = S3Warehouse.Server.s3.keys(S3Warehouse.BUCKET, prefix);
        assertThat(keys).filteredOn(k -> k.endsWith(".parquet")).hasSize(1);
        assertThat(keys).contains(prefix + "_delta_log/00000000000000000000.json",
                prefix + "_delta_log/00000000000000000001.json");
        assertThat(keys).doesNotContain(prefix + "_delta_log/00000000000000000002.json");
    }
}
