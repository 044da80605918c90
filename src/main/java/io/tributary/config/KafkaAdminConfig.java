package io.tributary.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * {@code TRIBUTARY_KAFKA_ADMIN_TIMEOUT}: how long a registry-side Kafka admin call (a create's start positions, the
 * topic names behind an event source mapping) may take before the request fails naming the connection. The server's
 * API and the stream-api and backfill functions read it from here; the core is passed the value.
 */
@ConfigMapping(prefix = "tributary.kafka")
public interface KafkaAdminConfig {

    @WithDefault("10s")
    @WithConverter(DurationConverter.class)
    Duration adminTimeout();
}
