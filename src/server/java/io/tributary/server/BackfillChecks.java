package io.tributary.server;

import io.tributary.config.BackfillConfig;
import io.tributary.backfill.Backfill;
import io.tributary.backfill.BackfillSettings;
import io.tributary.config.BackfillConfig;
import io.tributary.delta.Tables;
import io.tributary.registry.directory.BackfillRound;
import io.tributary.registry.directory.BackfillTargets;
import io.tributary.registry.lock.StreamWriteLocks;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * The server's side of a backfill round: {@link BackfillRound} (shared with the backfill Lambda) with the settings of
 * {@link BackfillConfig}. The timer that calls it lives in the server's source root.
 */
@ApplicationScoped
public class BackfillChecks {
    private static final Logger LOG = Logger.getLogger(BackfillChecks.class);

    @Inject
    Tables tables;
    @Inject
    BackfillTargets targets;
    @Inject
    BackfillConfig config;
    @Inject
    StreamWriteLocks writeLocks;

    private BackfillRound round;

    @PostConstruct
    void init() {
        round = new BackfillRound(targets,
                new Backfill(tables, BackfillSettings.of(config.minOverlap(), config.maxWait()), Clock.systemUTC()), writeLocks);
    }

    /** One round over every pending backfill; a failure is logged and the next check tries again. */
    public List<BackfillRound.Result> checkAll() {
        try {
            return round.run();
        } catch (Exception e) {
            LOG.warn("cannot list the pending backfills; retrying at the next check", e);
            return List.of();
        }
    }
}
