package io.tributary.maintenance;

import io.tributary.delta.TableUpkeep;
import java.time.Duration;

/**
 * SPEC 6: {@code TRIBUTARY_MAINTENANCE_*}. {@code targetFileBytes}: compaction rewrites files under half of it into
 * files of about it; {@code vacuumRetention}: how long removed and unreferenced data files are kept (Delta's default is
 * 7 days), never below {@link TableUpkeep#MIN_VACUUM_RETENTION}; {@code producerExpiration}: how long a direct-ingest
 * producer may go without a commit before the table forgets it (SPEC 11.3), at least an hour.
 */
public record MaintenanceSettings(long targetFileBytes, Duration vacuumRetention, Duration producerExpiration) {
    public static final long DEFAULT_TARGET_FILE_BYTES = 128L * 1024 * 1024;
    public static final Duration DEFAULT_VACUUM_RETENTION = Duration.ofDays(7);
    /** As Kafka's {@code transactional.id.expiration.ms}: longer than any producer waits to re-send a batch. */
    public static final Duration DEFAULT_PRODUCER_EXPIRATION = Duration.ofDays(7);

    public MaintenanceSettings(long targetFileBytes, Duration vacuumRetention) {
        this(targetFileBytes, vacuumRetention, DEFAULT_PRODUCER_EXPIRATION);
    }

    public MaintenanceSettings {
        if (producerExpiration == null || producerExpiration.compareTo(Duration.ofHours(1)) < 0) {
            throw new IllegalArgumentException("tributary.maintenance.producer-expiration "
                    + "(TRIBUTARY_MAINTENANCE_PRODUCER_EXPIRATION) is " + producerExpiration + "; it must be at least "
                    + "1h, longer than a producer may take to re-send a batch it got no answer for. The default is 7d");
        }
        if (targetFileBytes <= 0) {
            throw new IllegalArgumentException("tributary.maintenance.target-file-size (TRIBUTARY_MAINTENANCE_TARGET_FILE_SIZE)"
                    + " must be positive, not " + targetFileBytes + " bytes; the default is 128MB");
        }
        if (vacuumRetention == null || vacuumRetention.compareTo(TableUpkeep.MIN_VACUUM_RETENTION) < 0) {
            throw new IllegalArgumentException("tributary.maintenance.vacuum-retention (TRIBUTARY_MAINTENANCE_VACUUM_RETENTION)"
                    + " is " + vacuumRetention + "; it must be at least 1h, or files of commits still in flight and"
                    + " of versions readers time travel to could be deleted. The default is 7d");
        }
    }

    public static MaintenanceSettings defaults() {
        return new MaintenanceSettings(DEFAULT_TARGET_FILE_BYTES, DEFAULT_VACUUM_RETENTION);
    }
}
