package io.tributary.backfill;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * SPEC 5: merge once the backfill reaches at least min-overlap past the first streamed record, so no time range is
 * left uncovered between the two; or, regardless, once max-wait has passed since the stream was created (a source
 * that never catches up must not block the merge forever).
 */
final class OverlapCheck {
    private OverlapCheck() {}

    static BackfillStatus decide(Optional<Instant> backfillMax, Optional<Instant> ingestionMin, Instant streamCreatedAt,
            BackfillSettings settings, Clock clock) {
        Instant max = backfillMax.orElse(null);
        Instant min = ingestionMin.orElse(null);
        if (max != null && min != null && !max.isBefore(min.plus(settings.minOverlap()))) {
            return new BackfillStatus(BackfillState.MERGING, max, min, false, 0, null, null);
        }
        Instant deadline = streamCreatedAt.plus(settings.maxWait());
        if (!clock.instant().isBefore(deadline)) {
            return new BackfillStatus(BackfillState.MERGING, max, min, true, 0, null,
                    "max-wait of " + settings.maxWait() + " passed at " + deadline + "; merging without the overlap");
        }
        String why = max == null ? "the backfill source has no rows with a stream_record_timestamp yet"
                : min == null ? "no record has been ingested from the stream yet"
                : "the backfill source reaches " + max + ", needs " + min.plus(settings.minOverlap())
                        + " (first streamed record + min-overlap " + settings.minOverlap() + ")";
        return new BackfillStatus(BackfillState.WAITING_FOR_OVERLAP, max, min, false, 0, null,
                why + "; merging regardless at " + deadline);
    }
}
