package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PipelineSettingsTest {

    private final PipelineSettings settings = new PipelineSettings(Duration.ofSeconds(1), 100, 1000, Duration.ofSeconds(30));
    private static final long SECOND = 1_000_000_000L;

    @Test
    void aBatchClosesAtTheTriggerOrAtEitherBoundWhicheverComesFirst() {
        long longAgo = -5 * SECOND;
        assertThat(settings.closes(0, 0, 0, longAgo, true, 5 * SECOND)).as("empty batches never close").isFalse();
        assertThat(settings.closes(1, 10, 0, 0, false, SECOND / 2)).isFalse();
        assertThat(settings.closes(1, 10, 0, 0, false, SECOND)).isTrue();
        assertThat(settings.closes(100, 10, 0, 0, false, 1)).isTrue();
        assertThat(settings.closes(5, 1000, 0, 0, false, 1)).isTrue();
    }

    @Test
    void atTheLogEndABatchClosesOnceAnIntervalPassedSinceThePreviousOneOrWhenHalfFull() {
        assertThat(settings.closes(1, 10, SECOND, 0, true, SECOND + 1))
                .as("the first records after a quiet spell: the previous batch closed over an interval ago").isTrue();
        assertThat(settings.closes(1, 10, SECOND, 0, false, SECOND + 1))
                .as("more is there to read: keep collecting until the log end or the batch's own interval").isFalse();
        assertThat(settings.closes(1, 10, SECOND / 2, SECOND / 4, true, SECOND / 2 + 1))
                .as("at most one commit per interval while records flow").isFalse();
        assertThat(settings.closes(50, 10, SECOND / 2, SECOND / 4, true, SECOND / 2 + 1))
                .as("the tail of a catch-up, half the records bound").isTrue();
        assertThat(settings.closes(5, 500, SECOND / 2, SECOND / 4, true, SECOND / 2 + 1))
                .as("half the bytes bound").isTrue();
        assertThat(settings.closes(49, 499, SECOND / 2, SECOND / 4, false, SECOND / 2 + 1)).isFalse();
    }

    @Test
    void pollsNeverOutwaitAnOpenBatchesClose() {
        assertThat(settings.pollTimeout(0, 0, 0, 7 * SECOND)).isEqualTo(Duration.ofSeconds(1));
        assertThat(settings.pollTimeout(3, 0, -SECOND / 2, 0))
                .as("until an interval after the previous batch closed").isEqualTo(Duration.ofMillis(500));
        assertThat(settings.pollTimeout(3, SECOND / 2, 0, 3 * SECOND / 4))
                .as("until an interval after the previous batch closed").isEqualTo(Duration.ofMillis(250));
        assertThat(settings.pollTimeout(3, SECOND / 2, 0, 5 * SECOND / 4))
                .as("past that, until an interval after this batch opened").isEqualTo(Duration.ofMillis(250));
        assertThat(settings.pollTimeout(3, 0, -SECOND, 2 * SECOND)).isEqualTo(Duration.ZERO);
    }

    @Test
    void nonPositiveSettingsAreRefusedByName() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> new PipelineSettings(Duration.ZERO, 1, 1, Duration.ofSeconds(1)))
                .hasMessageContaining("tributary.ingest.trigger-interval");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> new PipelineSettings(Duration.ofSeconds(1), 0, 1, Duration.ofSeconds(1)))
                .hasMessageContaining("tributary.ingest.max-batch-records");
    }

    /**
     * A value no pipeline can run with stops the server at start-up, naming the environment variable of the README's
     * table (before: the server started and answered ready, and every stream's start failed and was retried for ever
     * with a WARN naming only the property).
     */
    @Test
    void aSettingNoPipelineCanRunWithStopsTheServerAtStartNamingTheVariable() {
        assertThatThrownBy(() -> new PipelineSettings(Duration.ZERO, 100, 1000, Duration.ofSeconds(30)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TRIBUTARY_INGEST_TRIGGER_INTERVAL").hasMessageContaining("PT0S");
        assertThatThrownBy(() -> new PipelineSettings(Duration.ofSeconds(1), 0, 1000, Duration.ofSeconds(30)))
                .hasMessageContaining("TRIBUTARY_INGEST_MAX_BATCH_RECORDS");
        IngestConfig zeroTrigger = new IngestConfig() {
            public Duration triggerInterval() {
                return Duration.ZERO;
            }

            public int maxBatchRecords() {
                return 100_000;
            }

            public Long maxBatchBytes() {
                return 64L << 20;
            }

            public Duration topicRefresh() {
                return Duration.ofSeconds(30);
            }

            public Duration idleTimeout() {
                return Duration.ofSeconds(60);
            }

            public Duration sessionTimeout() {
                return PipelineSettings.SESSION_TIMEOUT;
            }

            public java.util.Optional<Long> maxMemory() {
                return java.util.Optional.empty();
            }

            public Duration maxStaleness() {
                return PipelineSettings.MAX_STALENESS;
            }
        };
        assertThatThrownBy(() -> new StreamsAtStartup(null, null, zeroTrigger).onStart(null))
                .hasMessageContaining("TRIBUTARY_INGEST_TRIGGER_INTERVAL");
    }
}
