package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PipelineSettingsTest {

    private final PipelineSettings settings = new PipelineSettings(Duration.ofSeconds(1), 100, 1000, Duration.ofSeconds(30));
    private static final long SECOND = 1_000_000_000L;

    @Test
    void aBatchClosesAtTheTriggerOrAtEitherBoundWhicheverComesFirst() {
        assertThat(settings.closes(0, 0, 0, 5 * SECOND)).as("empty batches never close").isFalse();
        assertThat(settings.closes(1, 10, 0, SECOND / 2)).isFalse();
        assertThat(settings.closes(1, 10, 0, SECOND)).isTrue();
        assertThat(settings.closes(100, 10, 0, 1)).isTrue();
        assertThat(settings.closes(5, 1000, 0, 1)).isTrue();
    }

    @Test
    void pollsNeverOutwaitAnOpenBatchesTrigger() {
        assertThat(settings.pollTimeout(0, 0, 7 * SECOND)).isEqualTo(Duration.ofSeconds(1));
        assertThat(settings.pollTimeout(3, 0, SECOND / 4)).isEqualTo(Duration.ofMillis(750));
        assertThat(settings.pollTimeout(3, 0, 2 * SECOND)).isEqualTo(Duration.ZERO);
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
}
