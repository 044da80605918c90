package io.tributary.lambda.mappings;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.tributary.ingest.StartPositions;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * stream-api and backfill tests: IngestMappings over in-memory fakes of the AWS Lambda and Secrets Manager control
 * planes (the only mocked parts; they cannot run here), and the tributary.aws settings a deployment passes. Patterns
 * resolve against the real test broker, as deployed.
 */
public class FakeAwsControlPlane implements QuarkusTestResourceLifecycleManager {
    public static final FakeLambda LAMBDA = new FakeLambda();
    public static final FakeSecrets SECRETS = new FakeSecrets();

    @Override
    public Map<String, String> start() {
        return Map.of(
                "tributary.aws.ingest-function-arn", FakeLambda.INGEST,
                "tributary.aws.ingest-batch-size", "10000",
                "tributary.aws.ingest-max-batching-window-seconds", "1",
                "tributary.aws.kafka-secret-prefix", "tributary/kafka/",
                "tributary.aws.kafka-secrets-kms-key-arn", "arn:aws:kms:eu-west-1:123456789012:key/k",
                "tributary.aws.kafka-subnet-ids", "subnet-a,subnet-b",
                "tributary.aws.kafka-security-group-id", "sg-f");
    }

    @Override
    public void stop() {}

    public static class Producer {
        @Produces
        @Alternative
        @Priority(1)
        @Singleton
        IngestMappings ingestMappings() {
            Duration kafkaTimeout = ConfigProvider.getConfig().getValue("tributary.kafka.admin-timeout", Duration.class);
            return new IngestMappings(LAMBDA, SECRETS, new TestMappingSettings(),
                    properties -> StartPositions.topicNames(properties, kafkaTimeout), Duration.ofSeconds(10),
                    Duration.ofMillis(1));
        }
    }
}
