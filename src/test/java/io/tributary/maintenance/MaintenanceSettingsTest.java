package io.tributary.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class MaintenanceSettingsTest {

    @Test
    void aRetentionUnderAnHourIsAConfigErrorNamingTheVariable() {
        assertThatThrownBy(() -> new MaintenanceSettings(1 << 20, Duration.ofMinutes(30)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TRIBUTARY_MAINTENANCE_VACUUM_RETENTION")
                .hasMessageContaining("at least 1h");
        assertThat(new MaintenanceSettings(1 << 20, Duration.ofHours(1)).vacuumRetention()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void aProducerExpirationUnderAnHourIsAConfigErrorNamingTheVariable() {
        assertThatThrownBy(() -> new MaintenanceSettings(1 << 20, Duration.ofDays(7), Duration.ofMinutes(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TRIBUTARY_MAINTENANCE_PRODUCER_EXPIRATION")
                .hasMessageContaining("at least 1h");
        assertThat(MaintenanceSettings.defaults().producerExpiration()).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void aNonPositiveTargetIsRefusedByName() {
        assertThatThrownBy(() -> new MaintenanceSettings(0, Duration.ofDays(7)))
                .hasMessageContaining("TRIBUTARY_MAINTENANCE_TARGET_FILE_SIZE");
    }

    @Test
    void defaultsAreDeltasRetentionAndA128MbTarget() {
        assertThat(MaintenanceSettings.defaults()).isEqualTo(new MaintenanceSettings(128L << 20, Duration.ofDays(7)));
    }
}
