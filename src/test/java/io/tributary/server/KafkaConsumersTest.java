package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.junit.jupiter.api.Test;

/**
 * The consumer settings several servers rely on to share a stream (bench/multi-server/run.sh shows them at work with
 * real server processes): cooperative rebalancing and a session timeout short enough for a quick takeover.
 */
class KafkaConsumersTest {

    private static final PipelineSpec SPEC = new PipelineSpec("id-s", "main.test.s", "/tmp/t",
            new Subscription.Topics(List.of("t")), Map.of("bootstrap.servers", "127.0.0.1:9"), new SchemaSource.Plain(),
            new SchemaSource.Plain(), Instant.now());

    @Test
    void everyServerJoinsTheStreamsGroupWithCooperativeRebalancingAndAShortSession() {
        Map<String, Object> props = KafkaConsumers.properties(SPEC,
                new PipelineSettings(Duration.ofSeconds(1), 100, 1000, Duration.ofSeconds(30)));
        assertThat(props).containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "tributary-id-s")
                .containsEntry(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                        CooperativeStickyAssignor.class.getName())
                .containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000")
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
    }

    @Test
    void theSessionTimeoutIsASetting() {
        Map<String, Object> props = KafkaConsumers.properties(SPEC, new PipelineSettings(Duration.ofSeconds(1), 100,
                1000, Duration.ofSeconds(30), PipelineSettings.NEVER, Duration.ofSeconds(30)));
        assertThat(props).containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "30000")
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "3000");
        assertThatThrownBy(() -> new PipelineSettings(Duration.ofSeconds(1), 100, 1000, Duration.ofSeconds(30),
                PipelineSettings.NEVER, Duration.ZERO)).hasMessageContaining("tributary.ingest.session-timeout");
    }

    @Test
    void aFetchWaitsForAMegabyteOrATwentiethOfTheTriggerIntervalWithinFiveToFiftyMilliseconds() {
        for (long[] c : new long[][] {{1000, 50}, {250, 12}, {100, 5}, {60_000, 50}}) {
            Map<String, Object> props = KafkaConsumers.properties(SPEC,
                    new PipelineSettings(Duration.ofMillis(c[0]), 100, 1000, Duration.ofSeconds(30)));
            assertThat(props).as("trigger %d ms", c[0])
                    .containsEntry(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, String.valueOf(1 << 20))
                    .containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, String.valueOf(c[1]));
        }
    }
}
