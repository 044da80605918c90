package io.tributary.lambda.mappings;

import java.util.List;
import java.util.Optional;

/** The tributary.aws settings of the tests' deployment (FakeAwsControlPlane passes the same as configuration). */
final class TestMappingSettings implements IngestMappingSettings {
    public String ingestFunctionArn() { return FakeLambda.INGEST; }
    public String ingestAliasPrefix() { return "stream-"; }
    public int ingestBatchSize() { return 10000; }
    public int ingestMaxBatchingWindowSeconds() { return 1; }
    public String kafkaSecretPrefix() { return "tributary/kafka/"; }
    public String kafkaSecretsKmsKeyArn() { return "arn:aws:kms:eu-west-1:123456789012:key/k"; }
    public List<String> kafkaSubnetIds() { return List.of("subnet-a", "subnet-b"); }
    public String kafkaSecurityGroupId() { return "sg-f"; }
    public Optional<List<String>> mskClusterArns() { return Optional.of(List.of(FakeLambda.MSK)); }
}
