package io.tributary.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void doublesFromTheFirstDelayUpToTheCeiling() {
        Backoff b = Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30));
        assertThat(b.delay(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(b.delay(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(b.delay(5)).isEqualTo(Duration.ofSeconds(16));
        assertThat(b.delay(6)).isEqualTo(Duration.ofSeconds(30));
        assertThat(b.delay(1_000)).as("no overflow after many retries").isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void retriesCountFailuresInARowAndStartOverAfterASuccess() {
        Backoff.Retries r = Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(500)).retries();
        assertThat(r.next()).isEqualTo(Duration.ofMillis(50));
        assertThat(r.next()).isEqualTo(Duration.ofMillis(100));
        r.reset();
        assertThat(r.next()).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void aCeilingBelowTheFirstDelayIsRefused() {
        assertThatThrownBy(() -> Backoff.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("first <= max");
    }
}
