package io.tributary.lambda.mappings;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tributary.lambda.mappings.LambdaApi.ConflictException;
import io.tributary.lambda.mappings.LambdaApi.NotFoundException;
import io.tributary.config.KafkaAdminConfig;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.StartPositions;
import io.tributary.ingest.Subscription;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.ErrorCode;
import io.tributary.ingest.SubscriptionTopics;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Pattern;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * On AWS a stream's pipeline is a set of Kafka event source mappings, one per topic (a mapping reads one topic),
 * all invoking the stream's own alias of the ingest function. stream-api creates them when a stream is created and
 * deletes them when it is deleted; for a {@code subscribe_pattern} the backfill function's schedule adds and removes
 * them as topics start to match or are deleted ({@link PatternRefresh}). Built into both functions from
 * src/lambda-mappings.
 *
 * <p>The mappings start at the beginning of each topic: records older than the stream are dropped by the ingest core,
 * whose positions start at the end offsets recorded at create (SPEC 4), so none produced after create is missed
 * while a mapping is still starting. A topic without a recorded position (one that starts to match a pattern after
 * create) is ingested from its first record, as the server does. An {@code assign} subscription maps whole topics;
 * the core drops other partitions. A pattern resolves, like the start positions, against the cluster's topics
 * (internal ones left out) with a whole-name match; zero matches is a stream with no mapping yet.
 *
 * <p>The registry keeps the mappings {@link #create} returns ({@link MappingRecords}): listing mappings by function
 * needs IAM on every resource, which the deployment does not grant.
 */
@ApplicationScoped
public class IngestMappings {

    // Lambda alias names: letters, digits, '-' and '_', not all digits, at most 128 characters.
    private static final Pattern ALIAS = Pattern.compile("(?!^[0-9]+$)[A-Za-z0-9_-]{1,128}");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The cluster's topic names for a stream's Kafka client properties (internal topics left out). */
    @FunctionalInterface
    public interface TopicNames {
        SortedSet<String> list(Map<String, String> kafkaProperties);
    }

    private final LambdaApi lambda;
    private final SecretsManagerClient secrets;
    private final IngestMappingSettings settings;
    private final MappingRequests requests;
    private final TopicNames topicNames;
    private final Duration deletionTimeout;
    private final Duration pollInterval;

    @Inject
    public IngestMappings(IngestMappingSettings settings, KafkaAdminConfig kafka) {
        this(SignedLambdaApi.fromEnvironment(),
                SecretsManagerClient.builder().httpClient(UrlConnectionHttpClient.create()).build(),
                settings, properties -> StartPositions.topicNames(properties, kafka.adminTimeout()), Duration.ofMinutes(2),
                Duration.ofSeconds(2));
    }

    IngestMappings(LambdaApi lambda, SecretsManagerClient secrets, IngestMappingSettings settings,
            TopicNames topicNames, Duration deletionTimeout, Duration pollInterval) {
        this.lambda = lambda;
        this.secrets = secrets;
        this.settings = settings;
        this.requests = new MappingRequests(settings);
        this.topicNames = topicNames;
        this.deletionTimeout = deletionTimeout;
        this.pollInterval = pollInterval;
    }

    /**
     * The topics the stream's mappings read: the named ones for {@code subscribe} and {@code assign}, the cluster's
     * topics the pattern matches now for {@code subscribe_pattern}.
     *
     * @throws StartPositions.KafkaAccessException when a pattern cannot be resolved (Kafka unreachable or refusing)
     */
    public SortedSet<String> topics(PipelineSpec spec) {
        return topics(spec, topicNames);
    }

    /** {@link #topics(PipelineSpec)} with the cluster's topic names from {@code names}. */
    public SortedSet<String> topics(PipelineSpec spec, TopicNames names) {
        return SubscriptionTopics.topics(spec.subscription(), () -> names.list(spec.kafkaProperties()));
    }

    /** Where {@link #topics(PipelineSpec)} lists a cluster's topics. */
    public TopicNames topicNames() {
        return topicNames;
    }

    /**
     * Creates the stream's alias, credentials secret (SASL only) and one mapping per topic it resolves to now. When
     * one fails, what was created is deleted again before the exception is thrown.
     */
    public List<MappingRecords.Mapping> create(PipelineSpec spec) {
        KafkaAccess access = KafkaAccess.of(spec.kafkaProperties());
        SortedSet<String> topics;
        try {
            topics = topics(spec);
        } catch (StartPositions.KafkaAccessException e) {
            // As when the start positions cannot be read: a 400 on the connection (SPEC 2).
            throw new ApiException(ErrorCode.INVALID_PARAMETER_VALUE, "connection_config: " + e.getMessage());
        }
        String alias = alias(spec.streamId());
        try {
            lambda.createAlias(settings.ingestFunctionArn(), alias, "Tributary stream " + spec.streamName());
        } catch (ConflictException alreadyThere) {
            // A retried create: the alias from the first attempt is the one we want.
        }
        try {
            Optional<String> secretArn = credentialsSecret(spec.streamId(), access);
            return createMappings(spec, access, secretArn, topics);
        } catch (RuntimeException e) {
            // createMappings removed the mappings it made; the alias and secret go too, as the stream will.
            try {
                deleteAliasAndSecret(spec.streamId());
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /**
     * Adds mappings of further topics to a started stream, on its alias and with its credentials secret. When one
     * fails, those this call created are deleted again (without waiting) before the exception is thrown.
     */
    public List<MappingRecords.Mapping> add(PipelineSpec spec, Collection<String> topics) {
        if (topics.isEmpty()) {
            return List.of();
        }
        KafkaAccess access = KafkaAccess.of(spec.kafkaProperties());
        Optional<String> secretArn = access.username() == null ? Optional.empty()
                : Optional.of(secrets.describeSecret(r -> r.secretId(secretName(spec.streamId()))).arn());
        return createMappings(spec, access, secretArn, topics);
    }

    /** Deletes mappings whose topics are gone, without waiting: they can deliver nothing more. Safe to repeat. */
    public void remove(Collection<String> mappingIds) {
        for (String id : mappingIds) {
            try {
                lambda.deleteEventSourceMapping(id);
            } catch (NotFoundException gone) {
                // Deleted by an earlier attempt.
            }
        }
    }

    private List<MappingRecords.Mapping> createMappings(PipelineSpec spec, KafkaAccess access,
            Optional<String> secretArn, Collection<String> topics) {
        String alias = alias(spec.streamId());
        Optional<String> cluster = access.mskCluster(settings.mskClusterArns().orElse(List.of()));
        if (cluster.isEmpty() && access.auth() == KafkaAccess.Auth.MSK_IAM) {
            throw new IllegalArgumentException("the brokers " + access.bootstrapServers() + " use MSK IAM "
                    + "but belong to no MSK cluster of this deployment; add the cluster to msk_cluster_arns");
        }
        List<MappingRecords.Mapping> created = new ArrayList<>();
        try {
            for (String topic : new TreeSet<>(topics)) {
                ObjectNode request = requests.request(spec, access, secretArn, cluster, alias, topic);
                created.add(new MappingRecords.Mapping(topic, lambda.createEventSourceMapping(request)));
            }
            return List.copyOf(created);
        } catch (RuntimeException e) {
            try {
                remove(created.stream().map(MappingRecords.Mapping::id).toList());
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }


    /**
     * Deletes the mappings and waits until Lambda has removed them, then the alias and the credentials secret.
     * Safe to repeat. An invocation already running may still finish after this returns.
     */
    public void delete(String streamId, List<String> mappingIds) {
        for (String id : mappingIds) {
            try {
                lambda.deleteEventSourceMapping(id);
            } catch (NotFoundException gone) {
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
        deleteAliasAndSecret(streamId);
    }

    private void deleteAliasAndSecret(String streamId) {
        try {
            lambda.deleteAlias(settings.ingestFunctionArn(), alias(streamId));
        } catch (NotFoundException gone) {
            // Deleted by an earlier attempt.
        }
        try {
            secrets.deleteSecret(r -> r.secretId(secretName(streamId)).forceDeleteWithoutRecovery(true));
        } catch (software.amazon.awssdk.services.secretsmanager.model.ResourceNotFoundException none) {
            // The stream had no SASL credentials, or an earlier attempt removed them.
        }
    }

    @PreDestroy
    public void close() {
        lambda.close();
        secrets.close();
    }

    private boolean exists(String id) {
        return lambda.eventSourceMappingExists(id);
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




    private void sleep() {
        try {
            Thread.sleep(pollInterval.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for event source mappings to be deleted", e);
        }
    }
}
