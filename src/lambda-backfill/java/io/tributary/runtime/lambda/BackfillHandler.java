package io.tributary.runtime.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.backfill.Backfill;
import io.tributary.backfill.BackfillSettings;
import io.tributary.delta.NoSuchTableException;
import io.tributary.delta.Tables;
import io.tributary.registry.BackfillRound;
import io.tributary.registry.BackfillTargets;
import io.tributary.registry.StreamWriteLocks;
import io.tributary.runtime.config.DurationConverter;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The backfill function: each scheduled tick refreshes the event source mappings of every {@code subscribe_pattern}
 * stream ({@link PatternRefresh}: topics that started to match get one, deleted topics lose theirs), runs the overlap
 * check of every stream with a backfill source, merges those that are ready (SPEC 5; the same {@link BackfillRound}
 * the server's schedule runs) and compacts small files of every ingestion table (SPEC 4). A failing pattern refresh
 * is counted in the result and logged; it holds up neither the other streams nor the backfill. Only the schedule may
 * invoke it.
 */
public class BackfillHandler implements RequestHandler<ScheduledEvent, BackfillSummary> {
    private static final Logger LOG = Logger.getLogger(BackfillHandler.class);

    static final String SCHEDULER_SOURCE = "tributary.scheduler";
    static final String EVENTS_SOURCE = "aws.events";
    /** Files under half of this are rewritten into files of about this size: a common Delta target size. */
    static final long TARGET_FILE_BYTES = 128L * 1024 * 1024;

    @Inject
    PatternRefresh patterns;
    @Inject
    BackfillTargets targets;
    @Inject
    IngestionTables ingestionTables;
    @Inject
    Tables tables;
    @Inject
    StreamWriteLocks writeLocks;
    @ConfigProperty(name = "tributary.backfill.min-overlap", defaultValue = "1h")
    String minOverlap;
    @ConfigProperty(name = "tributary.backfill.max-wait", defaultValue = "48h")
    String maxWait;

    @Override
    public BackfillSummary handleRequest(ScheduledEvent event, Context context) {
        if (event == null || !(SCHEDULER_SOURCE.equals(event.source()) || EVENTS_SOURCE.equals(event.source()))) {
            throw new IllegalArgumentException("source is '" + (event == null ? null : event.source())
                    + "'; backfill runs only from its schedule (source '" + SCHEDULER_SOURCE + "' or '"
                    + EVENTS_SOURCE + "')");
        }
        PatternRefresh.Summary refreshed = patterns.run();
        DurationConverter durations = new DurationConverter();
        Backfill backfill = new Backfill(tables,
                BackfillSettings.of(durations.convert(minOverlap), durations.convert(maxWait)), Clock.systemUTC());
        List<BackfillRound.Result> results;
        try {
            results = new BackfillRound(targets, backfill, writeLocks).run();
        } catch (Exception e) {
            throw new IllegalStateException("backfill check failed: " + e.getMessage(), e);
        }
        int compacted = compactAll();
        long merged = results.stream().filter(r -> r.rowsMerged() != null).count();
        long failed = results.stream().filter(BackfillRound.Result::error).count();
        return new BackfillSummary(results.size(), merged, failed, compacted, refreshed.streamsChecked(),
                refreshed.mappingsAdded(), refreshed.mappingsRemoved(), refreshed.failures());
    }

    /**
     * One table's failure does not stop the others; it is compacted at the next tick. Each compaction runs under the
     * table's write lock, so a stream deleted meanwhile (by stream-api, another process) is skipped, and a delete
     * waits for a compaction in flight instead of having it recreate the log it removed.
     */
    private int compactAll() {
        List<String> locations;
        try {
            locations = VertxContextSupport.subscribeAndAwait(() -> ingestionTables.locations());
        } catch (Throwable e) {
            throw new IllegalStateException("cannot list the ingestion tables to compact", e);
        }
        int compacted = 0;
        for (String location : locations) {
            try {
                Optional<Optional<Long>> version = writeLocks.forTable(location)
                        .run(() -> tables.open(location).compact(TARGET_FILE_BYTES));
                if (version.isPresent() && version.get().isPresent()) {
                    compacted++;
                }
            } catch (NoSuchTableException e) {
                // the stream was deleted after the listing
            } catch (RuntimeException e) {
                LOG.warnf(e, "compacting %s failed; retrying at the next check", location);
            }
        }
        return compacted;
    }
}
