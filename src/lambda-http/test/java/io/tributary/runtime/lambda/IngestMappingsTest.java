package io.tributary.runtime.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.CreateAliasRequest;
import software.amazon.awssdk.services.lambda.model.CreateAliasResponse;
import software.amazon.awssdk.services.lambda.model.CreateEventSourceMappingRequest;
import software.amazon.awssdk.services.lambda.model.CreateEventSourceMappingResponse;
import software.amazon.awssdk.services.lambda.model.DeleteAliasRequest;
import software.amazon.awssdk.services.lambda.model.DeleteAliasResponse;
import software.amazon.awssdk.services.lambda.model.DeleteEventSourceMappingRequest;
import software.amazon.awssdk.services.lambda.model.DeleteEventSourceMappingResponse;
import software.amazon.awssdk.services.lambda.model.EndPointType;
import software.amazon.awssdk.services.lambda.model.EventSourcePosition;
import software.amazon.awssdk.services.lambda.model.GetEventSourceMappingRequest;
import software.amazon.awssdk.services.lambda.model.GetEventSourceMappingResponse;
import software.amazon.awssdk.services.lambda.model.ResourceNotFoundException;
import software.amazon.awssdk.services.lambda.model.SourceAccessType;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.model.CreateSecretRequest;
import software.amazon.awssdk.services.secretsmanager.model.CreateSecretResponse;
import software.amazon.awssdk.services.secretsmanager.model.DeleteSecretRequest;
import software.amazon.awssdk.services.secretsmanager.model.DeleteSecretResponse;

/** IngestMappings against in-memory stand-ins for the Lambda and Secrets Manager control planes. */
class IngestMappingsTest {

    private static final String INGEST = "arn:aws:lambda:eu-west-1:123456789012:function:tributary-ingest";
    private static final String MSK = "arn:aws:kafka:eu-west-1:123456789012:cluster/events/0123-4567-1";

    private final FakeLambda lambda = new FakeLambda();
    private final FakeSecrets secrets = new FakeSecrets();
    private final IngestMappings mappings = new IngestMappings(lambda, secrets, new Settings(),
            Duration.ofSeconds(5), Duration.ofMillis(1));

    @Test
    void createsOneMappingPerTopicOnTheStreamsAliasWithScramCredentialsInASecret() {
        List<String> ids = mappings.create(spec(new Subscription.Topics(List.of("tx-us", "tx-eu")), Map.of(
                "bootstrap.servers", "b1.example.com:9096,b2.example.com:9096",
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"ingest\" password=\"p4ss\";")));

        assertThat(ids).containsExactly("uuid-1", "uuid-2");
        assertThat(lambda.aliases).containsExactly("stream-s1");
        assertThat(lambda.aliasRequests.get(0).functionVersion()).isEqualTo("$LATEST");
        assertThat(secrets.created).singleElement().satisfies(secret -> {
            assertThat(secret.name()).isEqualTo("tributary/kafka/s1");
            assertThat(secret.kmsKeyId()).isEqualTo("arn:aws:kms:eu-west-1:123456789012:key/k");
            assertThat(secret.secretString()).isEqualTo("{\"username\":\"ingest\",\"password\":\"p4ss\"}");
        });
        assertThat(lambda.mappings).extracting(m -> m.topics().get(0)).containsExactly("tx-eu", "tx-us");
        CreateEventSourceMappingRequest first = lambda.mappings.get(0);
        assertThat(first.functionName()).isEqualTo(INGEST + ":stream-s1");
        assertThat(first.batchSize()).isEqualTo(10000);
        assertThat(first.maximumBatchingWindowInSeconds()).isEqualTo(1);
        assertThat(first.startingPosition()).isEqualTo(EventSourcePosition.TRIM_HORIZON);
        assertThat(first.eventSourceArn()).isNull();
        assertThat(first.selfManagedEventSource().endpoints().get(EndPointType.KAFKA_BOOTSTRAP_SERVERS))
                .containsExactly("b1.example.com:9096", "b2.example.com:9096");
        assertThat(first.sourceAccessConfigurations()).extracting(a -> a.type() + " " + a.uri()).containsExactly(
                "SASL_SCRAM_512_AUTH arn:aws:secretsmanager:eu-west-1:123456789012:secret:tributary/kafka/s1-AbC",
                "VPC_SUBNET subnet:subnet-a", "VPC_SUBNET subnet:subnet-b", "VPC_SECURITY_GROUP security_group:sg-f");
        String group = first.selfManagedKafkaEventSourceConfig().consumerGroupId();
        assertThat(group).startsWith("tributary-s1-")
                .isNotEqualTo(lambda.mappings.get(1).selfManagedKafkaEventSourceConfig().consumerGroupId());
    }

    @Test
    void mapsMskBrokersToTheirClusterWithIamAuthAndNoSecret() {
        mappings.create(spec(new Subscription.Assign(Map.of("orders", List.of(0, 1))), Map.of(
                "bootstrap.servers", "b-1.events.abc123.c2.kafka.eu-west-1.amazonaws.com:9098",
                "security.protocol", "SASL_SSL", "sasl.mechanism", "AWS_MSK_IAM")));

        assertThat(secrets.created).isEmpty();
        CreateEventSourceMappingRequest mapping = lambda.mappings.get(0);
        assertThat(mapping.eventSourceArn()).isEqualTo(MSK);
        assertThat(mapping.topics()).containsExactly("orders");
        assertThat(mapping.selfManagedEventSource()).isNull();
        assertThat(mapping.amazonManagedKafkaEventSourceConfig().consumerGroupId()).startsWith("tributary-s1-");
        assertThat(mapping.sourceAccessConfigurations()).isEmpty();
    }

    @Test
    void refusesWhatMappingsCannotDo() {
        assertThatThrownBy(() -> mappings.create(spec(new Subscription.Pattern("tx-.*"),
                Map.of("bootstrap.servers", "b1:9092"))))
                .isInstanceOf(io.tributary.registry.RegistryException.class)
                .hasMessageStartingWith("source_config.kafka_stream_config.subscription_mode.subscribe_pattern: "
                        + "cannot run on AWS Lambda");
        assertThatThrownBy(() -> mappings.create(spec(new Subscription.Topics(List.of("t")),
                Map.of("bootstrap.servers", "b1.example.com:9098", "sasl.mechanism", "AWS_MSK_IAM"))))
                .hasMessageContaining("add the cluster to msk_cluster_arns");
        assertThatThrownBy(() -> mappings.create(spec(new Subscription.Topics(List.of("t")), Map.of(
                "bootstrap.servers", "b1:9092", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", "PlainLoginModule required username=\"u\";"))))
                .hasMessageContaining("sasl.jaas.config must hold").hasMessageNotContaining("username=\"u\"");
        assertThat(lambda.mappings).isEmpty();
    }

    @Test
    void deleteRemovesTheMappingsWaitsUntilTheyAreGoneThenTheAliasAndSecret() {
        List<String> ids = mappings.create(spec(new Subscription.Topics(List.of("a", "b")), Map.of(
                "bootstrap.servers", "b1:9092", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", "PlainLoginModule required username=\"u\" password=\"p\";")));

        mappings.delete("s1", ids);

        assertThat(lambda.deleted).containsExactly("uuid-1", "uuid-2");
        assertThat(lambda.live).isEmpty();
        assertThat(lambda.polls).isGreaterThanOrEqualTo(4); // each mapping was seen deleting before it was gone
        assertThat(lambda.aliases).isEmpty();
        assertThat(secrets.deleted).containsExactly("tributary/kafka/s1");

        mappings.delete("s1", ids); // a repeated delete finds nothing left and succeeds
    }

    private static PipelineSpec spec(Subscription subscription, Map<String, String> kafka) {
        return new PipelineSpec("s1", "main.fraud.tx", "s3://w/main/fraud/tx", subscription, kafka, null, null,
                Instant.parse("2026-11-30T08:00:00Z"));
    }

    static final class Settings implements IngestMappingSettings {
        public String ingestFunctionArn() { return INGEST; }
        public String ingestAliasPrefix() { return "stream-"; }
        public int ingestBatchSize() { return 10000; }
        public int ingestMaxBatchingWindowSeconds() { return 1; }
        public String kafkaSecretPrefix() { return "tributary/kafka/"; }
        public String kafkaSecretsKmsKeyArn() { return "arn:aws:kms:eu-west-1:123456789012:key/k"; }
        public List<String> kafkaSubnetIds() { return List.of("subnet-a", "subnet-b"); }
        public String kafkaSecurityGroupId() { return "sg-f"; }
        public Optional<List<String>> mskClusterArns() { return Optional.of(List.of(MSK)); }
    }

    static final class FakeLambda implements LambdaClient {
        final List<String> aliases = new ArrayList<>();
        final List<CreateAliasRequest> aliasRequests = new ArrayList<>();
        final List<CreateEventSourceMappingRequest> mappings = new ArrayList<>();
        final Map<String, Integer> live = new HashMap<>(); // uuid -> polls left before it is gone (-1: not deleting)
        final List<String> deleted = new ArrayList<>();
        int polls;

        @Override
        public CreateAliasResponse createAlias(CreateAliasRequest request) {
            aliasRequests.add(request);
            aliases.add(request.name());
            return CreateAliasResponse.builder().name(request.name()).build();
        }

        @Override
        public CreateEventSourceMappingResponse createEventSourceMapping(CreateEventSourceMappingRequest request) {
            mappings.add(request);
            String uuid = "uuid-" + mappings.size();
            live.put(uuid, -1);
            return CreateEventSourceMappingResponse.builder().uuid(uuid).state("Creating").build();
        }

        @Override
        public DeleteEventSourceMappingResponse deleteEventSourceMapping(DeleteEventSourceMappingRequest request) {
            if (!live.containsKey(request.uuid())) {
                throw ResourceNotFoundException.builder().message("gone").build();
            }
            deleted.add(request.uuid());
            live.put(request.uuid(), 2);
            return DeleteEventSourceMappingResponse.builder().uuid(request.uuid()).state("Deleting").build();
        }

        @Override
        public GetEventSourceMappingResponse getEventSourceMapping(GetEventSourceMappingRequest request) {
            polls++;
            Integer left = live.get(request.uuid());
            if (left == null || left == 0) {
                live.remove(request.uuid());
                throw ResourceNotFoundException.builder().message("gone").build();
            }
            live.put(request.uuid(), left - 1);
            return GetEventSourceMappingResponse.builder().uuid(request.uuid()).state("Deleting").build();
        }

        @Override
        public DeleteAliasResponse deleteAlias(DeleteAliasRequest request) {
            if (!aliases.remove(request.name())) {
                throw ResourceNotFoundException.builder().message("no alias").build();
            }
            return DeleteAliasResponse.builder().build();
        }

        @Override
        public String serviceName() {
            return "lambda";
        }

        @Override
        public void close() {}
    }

    static final class FakeSecrets implements SecretsManagerClient {
        final List<CreateSecretRequest> created = new ArrayList<>();
        final List<String> deleted = new ArrayList<>();

        @Override
        public CreateSecretResponse createSecret(CreateSecretRequest request) {
            created.add(request);
            return CreateSecretResponse.builder().name(request.name())
                    .arn("arn:aws:secretsmanager:eu-west-1:123456789012:secret:" + request.name() + "-AbC").build();
        }

        @Override
        public DeleteSecretResponse deleteSecret(DeleteSecretRequest request) {
            boolean existed = created.removeIf(c -> c.name().equals(request.secretId()));
            if (!existed) {
                throw software.amazon.awssdk.services.secretsmanager.model.ResourceNotFoundException.builder()
                        .message("no secret").build();
            }
            deleted.add(request.secretId());
            return DeleteSecretResponse.builder().build();
        }

        @Override
        public String serviceName() {
            return "secretsmanager";
        }

        @Override
        public void close() {}
    }
}
