package io.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConvertersTest {

    @Test
    void durationsInSpecNotation() {
        assertThat(DurationConverter.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationConverter.parse("1s")).isEqualTo(Duration.ofSeconds(1));
        assertThat(DurationConverter.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(DurationConverter.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(DurationConverter.parse("48h")).isEqualTo(Duration.ofHours(48));
        assertThat(DurationConverter.parse(" 30S ")).isEqualTo(Duration.ofSeconds(30));
        assertThat(DurationConverter.parse("PT1H")).isEqualTo(Duration.ofHours(1));
        assertThat(DurationConverter.parse("pt0.5s")).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void durationsWithoutUnitOrMalformedAreRefusedWithTheFix() {
        for (String bad : new String[] {"5", "1x", "PTX", "-1s", "1.5h"}) {
            assertThatThrownBy(() -> DurationConverter.parse(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(bad).hasMessageContaining("500ms");
        }
    }

    @Test
    void byteSizes() {
        assertThat(ByteSizeConverter.parse("64MB")).isEqualTo(64L << 20);
        assertThat(ByteSizeConverter.parse("512kb")).isEqualTo(512L << 10);
        assertThat(ByteSizeConverter.parse("1G")).isEqualTo(1L << 30);
        assertThat(ByteSizeConverter.parse("1000")).isEqualTo(1000L);
        assertThatThrownBy(() -> ByteSizeConverter.parse("64 parsecs")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("64MB");
    }
}
