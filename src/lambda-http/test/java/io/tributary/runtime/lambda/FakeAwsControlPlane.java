package io.tributary.runtime.lambda;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;

/**
 * stream-api tests: IngestMappings over in-memory fakes of the AWS Lambda and Secrets Manager control planes (the
 * only mocked parts; they cannot run here), and the tributary.aws settings a deployment passes.
 */
public class FakeAwsControlPlane implements QuarkusTestResourceLifecycleManager {
    static final IngestMappingsTest.FakeLambda LAMBDA = new IngestMappingsTest.FakeLambda();
    static final IngestMappingsTest.FakeSecrets SECRETS = new IngestMappingsTest.FakeSecrets();

    @Override
    public Map<String, String> start() {
        return Map.of(
                "tributary.aws.ingest-function-arn", "arn:aws:lambda:eu-west-1:123456789012:function:tributary-ingest",
                "tributary.aws.ingest-batch-size", "10000",
                "tributary.aws.ingest-max-batching-window-seconds", "1",
                "tributary.aws.kafka-secret-prefix", "tributary/kafka/",
                "tributary.aws.kafka-secrets-kms-key-arn", "arn:aws:kms:eu-west-1:123456789012:key/k",
                "tributary.aws.kafka-subnet-ids", "subnet-a,subnet-b",
                "tributary.aws.kafka-security-group-id", "sg-f");
    }

    @Override
    public void stop() {}

    static class Producer {
        @Produces
        @Alternative
        @Priority(1)
        @Singleton
        IngestMappings ingestMappings() {
            return new IngestMappings(LAMBDA, SECRETS, new IngestMappingsTest.Settings(), Duration.ofSeconds(10),
                    Duration.ofMillis(1));
        }
    }
}
