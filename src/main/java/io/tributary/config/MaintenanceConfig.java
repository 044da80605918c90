package io.tributary.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import io.tributary.config.ByteSizeConverter;
import io.tributary.config.DurationConverter;
import java.time.Duration;

/** SPEC 6: {@code TRIBUTARY_MAINTENANCE_*} (checked by {@link io.tributary.maintenance.MaintenanceSettings}). */
@ConfigMapping(prefix = "tributary.maintenance")
public interface MaintenanceConfig {

    /** How often the server compacts and vacuums every ingestion table (on AWS: each backfill schedule tick). */
    @WithDefault("5m")
    @WithConverter(DurationConverter.class)
    Duration interval();

    /** Files under half of this are rewritten into files of about this size: a common Delta target size. */
    @WithDefault("128MB")
    @WithConverter(ByteSizeConverter.class)
    Long targetFileSize();

    /** Removed and unreferenced data files are deleted once older than this (Delta's default); at least 1h. */
    @WithDefault("7d")
    @WithConverter(DurationConverter.class)
    Duration vacuumRetention();

    /**
     * A direct-ingest producer without a commit for this long is forgotten by the table (SPEC 11.3): as Kafka's
     * {@code transactional.id.expiration.ms}; at least 1h.
     */
    @WithDefault("7d")
    @WithConverter(DurationConverter.class)
    Duration producerExpiration();
}
