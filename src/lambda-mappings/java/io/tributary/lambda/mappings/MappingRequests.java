package io.tributary.lambda.mappings;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tributary.ingest.PipelineSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * What one topic's event source mapping is for {@link IngestMappings}: the function alias it invokes, its batching,
 * its consumer group, and how Lambda reaches the brokers (an MSK cluster of the deployment, or self-managed Kafka in
 * the deployment's subnets) with which credentials. The CreateEventSourceMapping body as Lambda's REST-JSON API
 * names its members ({@link LambdaApi}).
 */
final class MappingRequests {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final IngestMappingSettings settings;

    MappingRequests(IngestMappingSettings settings) {
        this.settings = settings;
    }

    ObjectNode request(PipelineSpec spec, KafkaAccess access, Optional<String> secretArn,
            Optional<String> cluster, String alias, String topic) {
        // TRIM_HORIZON: a topic that starts to match after create has no position in the table and is read from its
        // first record; for the others the core drops what precedes the recorded start positions.
        ObjectNode request = JSON.createObjectNode()
                .put("FunctionName", settings.ingestFunctionArn() + ":" + alias)
                .put("BatchSize", settings.ingestBatchSize())
                .put("MaximumBatchingWindowInSeconds", settings.ingestMaxBatchingWindowSeconds())
                .put("StartingPosition", "TRIM_HORIZON");
        request.putArray("Topics").add(topic);
        String group = consumerGroup(spec.streamId(), topic);
        ArrayNode accessConfigs = JSON.createArrayNode();
        secretArn.ifPresent(arn -> accessConfigs.add(access(saslType(access.auth()), arn)));
        if (cluster.isPresent()) {
            request.put("EventSourceArn", cluster.get());
            request.putObject("AmazonManagedKafkaEventSourceConfig").put("ConsumerGroupId", group);
        } else {
            settings.kafkaSubnetIds().forEach(subnet -> accessConfigs.add(access("VPC_SUBNET", "subnet:" + subnet)));
            accessConfigs.add(access("VPC_SECURITY_GROUP", "security_group:" + settings.kafkaSecurityGroupId()));
            ArrayNode servers = request.putObject("SelfManagedEventSource").putObject("Endpoints")
                    .putArray("KAFKA_BOOTSTRAP_SERVERS");
            access.bootstrapServers().forEach(servers::add);
            request.putObject("SelfManagedKafkaEventSourceConfig").put("ConsumerGroupId", group);
        }
        request.set("SourceAccessConfigurations", accessConfigs);
        return request;
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

    private static String saslType(KafkaAccess.Auth auth) {
        return switch (auth) {
            case PLAIN -> "BASIC_AUTH";
            case SCRAM_SHA_256 -> "SASL_SCRAM_256_AUTH";
            case SCRAM_SHA_512 -> "SASL_SCRAM_512_AUTH";
            case NONE, MSK_IAM -> throw new IllegalStateException("no credentials secret for " + auth);
        };
    }

    private static ObjectNode access(String type, String uri) {
        return JSON.createObjectNode().put("Type", type).put("URI", uri);
    }
}
