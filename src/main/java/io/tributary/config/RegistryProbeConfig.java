package io.tributary.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * {@code TRIBUTARY_REGISTRY_PROBE_INTERVAL} / {@code _TIMEOUT}: how often the API probes the registry database and how
 * long a probe may wait before the database counts as down (registry.health.RegistryHealth).
 */
@ConfigMapping(prefix = "tributary.registry")
public interface RegistryProbeConfig {

    @WithDefault("1s")
    @WithConverter(DurationConverter.class)
    Duration probeInterval();

    @WithDefault("1500ms")
    @WithConverter(DurationConverter.class)
    Duration probeTimeout();
}
