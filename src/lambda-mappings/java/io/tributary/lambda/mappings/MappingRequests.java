package io.tributary.lambda.mappings;

import io.tributary.ingest.PipelineSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.lambda.model.AmazonManagedKafkaEventSourceConfig;
import software.amazon.awssdk.services.lambda.model.CreateEventSourceMappingRequest;
import software.amazon.awssdk.services.lambda.model.EndPointType;
import software.amazon.awssdk.services.lambda.model.EventSourcePosition;
import software.amazon.awssdk.services.lambda.model.SelfManagedEventSource;
import software.amazon.awssdk.services.lambda.model.SelfManagedKafkaEventSourceConfig;
import software.amazon.awssdk.services.lambda.model.SourceAccessConfiguration;
import software.amazon.awssdk.services.lambda.model.SourceAccessType;

/**
 * What one topic's event source mapping is for {@link IngestMappings}: the function alias it invokes, its batching,
 * its consumer group, and how Lambda reaches the brokers (an MSK cluster of the deployment, or self-managed Kafka in
 * the deployment's subnets) with which credentials.
 */
final class MappingRequests {
    private final IngestMappingSettings settings;

    MappingRequests(IngestMappingSettings settings) {
        this.settings = settings;
    }

    CreateEventSourceMappingRequest request(PipelineSpec spec, KafkaAccess access, Optional<String> secretArn,
            Optional<String> cluster, String alias, String topic) {
        // TRIM_HORIZON: a topic that starts to match after create has no position in the table and is read from its
        // first record; for the others the core drops what precedes the recorded start positions.
        CreateEventSourceMappingRequest.Builder request = CreateEventSourceMappingRequest.builder()
                .functionName(settings.ingestFunctionArn() + ":" + alias)
                .topics(topic)
                .batchSize(settings.ingestBatchSize())
                .maximumBatchingWindowInSeconds(settings.ingestMaxBatchingWindowSeconds())
                .startingPosition(EventSourcePosition.TRIM_HORIZON);
        String group = consumerGroup(spec.streamId(), topic);
        List<SourceAccessConfiguration> accessConfigs = new ArrayList<>();
        secretArn.ifPresent(arn -> accessConfigs.add(access(saslType(access.auth()), arn)));
        if (cluster.isPresent()) {
            request.eventSourceArn(cluster.get())
                    .amazonManagedKafkaEventSourceConfig(AmazonManagedKafkaEventSourceConfig.builder()
                            .consumerGroupId(group).build());
        } else {
            settings.kafkaSubnetIds().forEach(
                    subnet -> accessConfigs.add(access(SourceAccessType.VPC_SUBNET, "subnet:" + subnet)));
            accessConfigs.add(access(SourceAccessType.VPC_SECURITY_GROUP,
                    "security_group:" + settings.kafkaSecurityGroupId()));
            request.selfManagedEventSource(SelfManagedEventSource.builder()
                            .endpoints(Map.of(EndPointType.KAFKA_BOOTSTRAP_SERVERS, access.bootstrapServers()))
                            .build())
                    .selfManagedKafkaEventSourceConfig(SelfManagedKafkaEventSourceConfig.builder()
                            .consumerGroupId(group).build());
        }
        return request.sourceAccessConfigurations(accessConfigs).build();
    }

    // Unique per mapping (Lambda requires it) and stable across retries; topic names may be too long to embed.
    private static String consumerGroup(String streamId, String topic) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(topic.getBytes(StandardCharsets.UTF_8));
            return "tributary-" + streamId + "-" + HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static SourceAccessType saslType(KafkaAccess.Auth auth) {
        return switch (auth) {
            case PLAIN -> SourceAccessType.BASIC_AUTH;
            case SCRAM_SHA_256 -> SourceAccessType.SASL_SCRAM_256_AUTH;
            case SCRAM_SHA_512 -> SourceAccessType.SASL_SCRAM_512_AUTH;
            case NONE, MSK_IAM -> throw new IllegalStateException("no credentials secret for " + auth);
        };
    }

    private static SourceAccessConfiguration access(SourceAccessType type, String uri) {
        return SourceAccessConfiguration.builder().type(type).uri(uri).build();
    }
}
