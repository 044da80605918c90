package io.tributary.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import io.tributary.config.DurationConverter;
import java.time.Duration;

/** SPEC 6: {@code TRIBUTARY_BACKFILL_*}, for the server's schedule and the backfill function alike. */
@ConfigMapping(prefix = "tributary.backfill")
public interface BackfillConfig {

    /** How often every pending backfill is checked (and merged when due). */
    @WithDefault("5m")
    @WithConverter(DurationConverter.class)
    Duration checkInterval();

    @WithDefault("1h")
    @WithConverter(DurationConverter.class)
    Duration minOverlap();

    @WithDefault("48h")
    @WithConverter(DurationConverter.class)
    Duration maxWait();
}
