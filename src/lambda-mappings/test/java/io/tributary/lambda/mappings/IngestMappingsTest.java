package io.tributary.lambda.mappings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.StartPositions;
import io.tributary.ingest.Subscription;
import io.tributary.registry.request.ApiException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.lambda.model.CreateEventSourceMappingRequest;
import software.amazon.awssdk.services.lambda.model.EndPointType;
import software.amazon.awssdk.services.lambda.model.EventSourcePosition;

/**
 * IngestMappings against in-memory stand-ins for the Lambda and Secrets Manager control planes, and a fixed topic list
 * (the Quarkus tests of stream-api and backfill resolve patterns against the real test broker).
 */
class IngestMappingsTest {

    private static final String INGEST = FakeLambda.INGEST;
    private static final String MSK = FakeLambda.MSK;
    private static final String PLAIN = "PlainLoginModule required username=\"u\" password=\"p\";";

    private final FakeLambda lambda = new FakeLambda();
    private final FakeSecrets secrets = new FakeSecrets();
    private final Set<String> clusterTopics = new TreeSet<>(Set.of("tx-eu", "tx-us", "tx-eu-archive", "orders"));
    private final IngestMappings mappings = new IngestMappings(lambda, secrets, new TestMappingSettings(),
            properties -> new TreeSet<>(clusterTopics), Duration.ofSeconds(5), Duration.ofMillis(1));

    @Test
    void createsOneMappingPerTopicOnTheStreamsAliasWithScramCredentialsInASecret() {
        List<String> ids = ids(mappings.create(spec(new Subscription.Topics(List.of("tx-us", "tx-eu")), Map.of(
                "bootstrap.servers", "b1.example.com:9096,b2.example.com:9096",
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"ingest\" password=\"p4ss\";"))));

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
    void aPatternMapsTheClustersTopicsItMatchesWhole() {
        List<MappingRecords.Mapping> created = mappings.create(spec(new Subscription.Pattern("tx-(eu|us)"),
                Map.of("bootstrap.servers", "b1:9092")));

        // tx-eu-archive contains a match but is not one: patterns match whole names, as Kafka's consumer does.
        assertThat(created).containsExactly(new MappingRecords.Mapping("tx-eu", "uuid-1"),
                new MappingRecords.Mapping("tx-us", "uuid-2"));
        assertThat(lambda.mappings).extracting(m -> m.topics().get(0)).containsExactly("tx-eu", "tx-us");
        assertThat(lambda.mappings).allSatisfy(m -> {
            assertThat(m.functionName()).isEqualTo(INGEST + ":stream-s1");
            assertThat(m.startingPosition()).isEqualTo(EventSourcePosition.TRIM_HORIZON);
        });
    }

    @Test
    void aPatternMatchingNothingYetStartsWithNoMappingButItsAlias() {
        assertThat(mappings.create(spec(new Subscription.Pattern("payments-.*"),
                Map.of("bootstrap.servers", "b1:9092")))).isEmpty();
        assertThat(lambda.aliases).containsExactly("stream-s1");
        assertThat(lambda.mappings).isEmpty();
    }

    @Test
    void anUnreachableClusterIsA400OnTheConnectionAndLeavesNothing() {
        IngestMappings unreachable = new IngestMappings(lambda, secrets, new TestMappingSettings(), properties -> {
            throw new StartPositions.KafkaAccessException("Kafka did not answer in time");
        }, Duration.ofSeconds(5), Duration.ofMillis(1));

        assertThatThrownBy(() -> unreachable.create(spec(new Subscription.Pattern("tx-.*"),
                Map.of("bootstrap.servers", "b1:9092"))))
                .isInstanceOf(ApiException.class)
                .hasMessage("connection_config: Kafka did not answer in time");
        assertThat(lambda.aliases).isEmpty();
        assertThat(lambda.mappings).isEmpty();
    }

    @Test
    void addMapsFurtherTopicsOnTheAliasWithTheStreamsSecretAndRemoveDeletesWithoutWaiting() {
        Map<String, String> sasl = Map.of("bootstrap.servers", "b1:9092", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", PLAIN);
        mappings.create(spec(new Subscription.Pattern("tx-.*"), sasl));
        int polls = lambda.polls;

        List<MappingRecords.Mapping> added = mappings.add(spec(new Subscription.Pattern("tx-.*"), sasl),
                List.of("tx-apac"));

        assertThat(added).containsExactly(new MappingRecords.Mapping("tx-apac", "uuid-4"));
        assertThat(secrets.created).hasSize(1); // the stream's secret, described rather than created again
        CreateEventSourceMappingRequest request = lambda.request("uuid-4");
        assertThat(request.functionName()).isEqualTo(INGEST + ":stream-s1");
        assertThat(request.startingPosition()).isEqualTo(EventSourcePosition.TRIM_HORIZON);
        assertThat(request.sourceAccessConfigurations().get(0).uri()).isEqualTo(FakeSecrets.arn("tributary/kafka/s1"));

        mappings.remove(List.of("uuid-1", "uuid-4"));
        mappings.remove(List.of("uuid-1")); // repeated: already deleting or gone
        assertThat(lambda.deleted).containsExactly("uuid-1", "uuid-4", "uuid-1");
        assertThat(lambda.polls).isEqualTo(polls);
        assertThat(lambda.aliases).containsExactly("stream-s1");
    }

    @Test
    void refusesWhatMappingsCannotDo() {
        assertThatThrownBy(() -> mappings.create(spec(new Subscription.Topics(List.of("t")),
                Map.of("bootstrap.servers", "b1.example.com:9098", "sasl.mechanism", "AWS_MSK_IAM"))))
                .hasMessageContaining("add the cluster to msk_cluster_arns");
        assertThat(lambda.aliases).as("the alias of a failed create is removed again").isEmpty();
        assertThatThrownBy(() -> mappings.create(spec(new Subscription.Topics(List.of("t")), Map.of(
                "bootstrap.servers", "b1:9092", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", "PlainLoginModule required username=\"u\";"))))
                .hasMessageContaining("sasl.jaas.config must hold").hasMessageNotContaining("username=\"u\"");
        assertThat(lambda.mappings).isEmpty();
    }

    @Test
    void deleteRemovesTheMappingsWaitsUntilTheyAreGoneThenTheAliasAndSecret() {
        List<String> ids = ids(mappings.create(spec(new Subscription.Topics(List.of("a", "b")), Map.of(
                "bootstrap.servers", "b1:9092", "sasl.mechanism", "PLAIN", "sasl.jaas.config", PLAIN))));

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

    private static List<String> ids(List<MappingRecords.Mapping> mappings) {
        return mappings.stream().map(MappingRecords.Mapping::id).toList();
    }
}
