package io.tributary.maintenance;

import io.tributary.delta.TableUpkeep;
import java.time.Duration;

/**
 * SPEC 6: {@code TRIBUTARY_MAINTENANCE_*}. {@code targetFileBytes}: compaction rewrites files under half of it into
 * files of about it; {@code vacuumRetention}: how long removed and unreferenced data files are kept (Delta's default is
 * 7 days), never below {@link TableUpkeep#MIN_VACUUM_RETENTION}.
 */
public record MaintenanceSettings(long targetFileBytes, Duration vacuumRetention) {
    public static final long DEFAULT_TARGET_FILE_BYTES = 128L * 1024 * 1024;
    public static final Duration DEFAULT_VACUUM_RETENTION = Duration.ofDays(7);

    public MaintenanceSettings {
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
