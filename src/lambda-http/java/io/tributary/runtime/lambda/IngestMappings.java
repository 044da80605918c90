package io.tributary.runtime.lambda;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.registry.ErrorCode;
import io.tributary.registry.RegistryException;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.AmazonManagedKafkaEventSourceConfig;
import software.amazon.awssdk.services.lambda.model.CreateEventSourceMappingRequest;
import software.amazon.awssdk.services.lambda.model.EndPointType;
import software.amazon.awssdk.services.lambda.model.EventSourcePosition;
import software.amazon.awssdk.services.lambda.model.ResourceConflictException;
import software.amazon.awssdk.services.lambda.model.ResourceNotFoundException;
import software.amazon.awssdk.services.lambda.model.SelfManagedEventSource;
import software.amazon.awssdk.services.lambda.model.SelfManagedKafkaEventSourceConfig;
import software.amazon.awssdk.services.lambda.model.SourceAccessConfiguration;
import software.amazon.awssdk.services.lambda.model.SourceAccessType;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * On AWS a stream's pipeline is a set of Kafka event source mappings, one per topic (a mapping reads one topic),
 * all invoking the stream's own alias of the ingest function. stream-api creates them when a stream is created and
 * deletes them when it is deleted.
 *
 * <p>The mappings start at the beginning of each topic: records older than the stream are dropped by the ingest core,
 * whose positions start at the end offsets recorded at create (SPEC 4), so none produced after create is missed
 * while a mapping is still starting. An {@code assign} subscription maps whole topics; the core drops other
 * partitions. A {@code subscribe_pattern} cannot be served, since mappings take fixed topic names.
 *
 * <p>Lead: the registry keeps the ids {@link #create} returns (listing mappings by function needs IAM on every
 * resource, which the deployment does not grant) and passes them to {@link #delete}.
 */
@ApplicationScoped
public class IngestMappings {

    // Lambda alias names: letters, digits, '-' and '_', not all digits, at most 128 characters.
    private static final Pattern ALIAS = Pattern.compile("(?!^[0-9]+$)[A-Za-z0-9_-]{1,128}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LambdaClient lambda;
    private final SecretsManagerClient secrets;
    private final IngestMappingSettings settings;
    private final Duration deletionTimeout;
    private final Duration pollInterval;

    @Inject
    public IngestMappings(IngestMappingSettings settings) {
        this(LambdaClient.builder().httpClient(UrlConnectionHttpClient.create()).build(),
                SecretsManagerClient.builder().httpClient(UrlConnectionHttpClient.create()).build(),
                settings, Duration.ofMinutes(2), Duration.ofSeconds(2));
    }

    IngestMappings(LambdaClient lambda, SecretsManagerClient secrets, IngestMappingSettings settings,
            Duration deletionTimeout, Duration pollInterval) {
        this.lambda = lambda;
        this.secrets = secrets;
        this.settings = settings;
        this.deletionTimeout = deletionTimeout;
        this.pollInterval = pollInterval;
    }

    /** Creates the stream's alias, credentials secret (SASL only) and mappings; returns the mapping ids. */
    public List<String> create(PipelineSpec spec) {
        List<String> topics = topics(spec.subscription());
        KafkaAccess access = KafkaAccess.of(spec.kafkaProperties());
        String alias = alias(spec.streamId());
        try {
            lambda.createAlias(r -> r.functionName(settings.ingestFunctionArn()).name(alias).functionVersion("$LATEST")
                    .description("Tributary stream " + spec.streamName()));
        } catch (ResourceConflictException alreadyThere) {
            // A retried create: the alias from the first attempt is the one we want.
        }
        Optional<String> cluster = access.mskCluster(settings.mskClusterArns().orElse(List.of()));
        Optional<String> secretArn = credentialsSecret(spec.streamId(), access);
        List<String> ids = new ArrayList<>();
        for (String topic : topics) {
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
                if (access.auth() == KafkaAccess.Auth.MSK_IAM) {
                    throw new IllegalArgumentException("the brokers " + access.bootstrapServers() + " use MSK IAM "
                            + "but belong to no MSK cluster of this deployment; add the cluster to msk_cluster_arns");
                }
                settings.kafkaSubnetIds().forEach(s -> accessConfigs.add(access(SourceAccessType.VPC_SUBNET, "subnet:" + s)));
                accessConfigs.add(access(SourceAccessType.VPC_SECURITY_GROUP,
                        "security_group:" + settings.kafkaSecurityGroupId()));
                request.selfManagedEventSource(SelfManagedEventSource.builder()
                                .endpoints(Map.of(EndPointType.KAFKA_BOOTSTRAP_SERVERS, access.bootstrapServers()))
                                .build())
                        .selfManagedKafkaEventSourceConfig(SelfManagedKafkaEventSourceConfig.builder()
                                .consumerGroupId(group).build());
            }
            request.sourceAccessConfigurations(accessConfigs);
            ids.add(lambda.createEventSourceMapping(request.build()).uuid());
        }
        return List.copyOf(ids);
    }

    /**
     * Deletes the mappings and waits until Lambda has removed them, then the alias and the credentials secret.
     * Safe to repeat. An invocation already running may still finish after this returns.
     */
    public void delete(String streamId, List<String> mappingIds) {
        for (String id : mappingIds) {
            try {
                lambda.deleteEventSourceMapping(r -> r.uuid(id));
            } catch (ResourceNotFoundException gone) {
                // Deleted by an earlier attempt.
            }
        }
        long deadline = System.nanoTime() + deletionTimeout.toNanos();
        for (String id : mappingIds) {
            while (exists(id)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("event source mapping " + id + " of stream " + streamId
                            + " is still being deleted after " + deletionTimeout + "; retry the delete");
                }
                sleep();
            }
        }
        try {
            lambda.deleteAlias(r -> r.functionName(settings.ingestFunctionArn()).name(alias(streamId)));
        } catch (ResourceNotFoundException gone) {
            // Deleted by an earlier attempt.
        }
        try {
            secrets.deleteSecret(r -> r.secretId(secretName(streamId)).forceDeleteWithoutRecovery(true));
        } catch (software.amazon.awssdk.services.secretsmanager.model.ResourceNotFoundException none) {
            // The stream had no SASL credentials, or an earlier attempt removed them.
        }
    }

    @PreDestroy
    void close() {
        lambda.close();
        secrets.close();
    }

    private boolean exists(String id) {
        try {
            lambda.getEventSourceMapping(r -> r.uuid(id));
            return true;
        } catch (ResourceNotFoundException gone) {
            return false;
        }
    }

    private Optional<String> credentialsSecret(String streamId, KafkaAccess access) {
        if (access.username() == null) {
            return Optional.empty();
        }
        ObjectNode credentials = JSON.createObjectNode().put("username", access.username())
                .put("password", access.password());
        String name = secretName(streamId);
        try {
            return Optional.of(secrets.createSecret(r -> r.name(name).kmsKeyId(settings.kafkaSecretsKmsKeyArn())
                    .description("Kafka credentials of Tributary stream " + streamId)
                    .secretString(credentials.toString())).arn());
        } catch (software.amazon.awssdk.services.secretsmanager.model.ResourceExistsException retried) {
            secrets.putSecretValue(r -> r.secretId(name).secretString(credentials.toString()));
            return Optional.of(secrets.describeSecret(r -> r.secretId(name)).arn());
        }
    }

    private String secretName(String streamId) {
        return settings.kafkaSecretPrefix() + streamId;
    }

    private String alias(String streamId) {
        String alias = settings.ingestAliasPrefix() + streamId;
        if (!ALIAS.matcher(alias).matches()) {
            throw new IllegalArgumentException("stream id " + streamId + " cannot name a Lambda alias (letters, "
                    + "digits, '-' and '_', at most " + (128 - settings.ingestAliasPrefix().length()) + ")");
        }
        return alias;
    }

    private static List<String> topics(Subscription subscription) {
        if (subscription instanceof Subscription.Topics t) {
            return List.copyOf(new TreeSet<>(t.topics()));
        }
        if (subscription instanceof Subscription.Assign a) {
            return List.copyOf(new TreeSet<>(a.partitions().keySet()));
        }
        // A request this deployment cannot serve: a 400 naming the field, like every other refused request (SPEC 2).
        throw new RegistryException(ErrorCode.INVALID_PARAMETER_VALUE, "source_config.kafka_stream_config"
                + ".subscription_mode.subscribe_pattern: cannot run on AWS Lambda: event source mappings read fixed "
                + "topic names; use subscribe with the topic names instead");
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

    private void sleep() {
        try {
            Thread.sleep(pollInterval.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for event source mappings to be deleted", e);
        }
    }
}
