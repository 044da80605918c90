package io.tributary.lambda.mappings;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.List;
import java.util.Optional;

/**
 * What stream-api needs to feed streams to the ingest function; Terraform sets each as TRIBUTARY_AWS_* (see
 * terraform/functions.tf). Checked when the function starts, so a deployment missing one fails at once.
 */
@ConfigMapping(prefix = "tributary.aws")
public interface IngestMappingSettings {

    /** Unqualified ARN of the ingest function. */
    String ingestFunctionArn();

    /** Each stream's mappings invoke the alias {@code <prefix><stream id>} of ingest, which names the stream. */
    @WithDefault("stream-")
    String ingestAliasPrefix();

    /** function.trigger.batch-size of function-configs/ingest. */
    int ingestBatchSize();

    /** function.trigger.maximum-batching-window-seconds of function-configs/ingest. */
    int ingestMaxBatchingWindowSeconds();

    /** Name prefix of the Secrets Manager secrets holding SASL credentials for the mappings. */
    String kafkaSecretPrefix();

    /** KMS key encrypting those secrets. */
    String kafkaSecretsKmsKeyArn();

    /** Subnets the mappings' pollers reach self-managed brokers from. */
    List<String> kafkaSubnetIds();

    /** Security group of those pollers. */
    String kafkaSecurityGroupId();

    /** MSK clusters of this deployment; a connection whose brokers belong to one is mapped as MSK. */
    Optional<List<String>> mskClusterArns();
}
