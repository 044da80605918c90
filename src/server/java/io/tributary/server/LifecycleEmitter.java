package io.tributary.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * Tells the other servers that a stream started or stopped: a PostgreSQL {@code NOTIFY} on
 * {@value LifecycleEvent#CHANNEL} in the registry database (see {@link LifecycleListener} for why not a broker).
 */
@ApplicationScoped
class LifecycleEmitter {

    private static final Logger LOG = Logger.getLogger(LifecycleEmitter.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final Pool pool;
    private final ObjectMapper json;

    @Inject
    LifecycleEmitter(Pool pool, ObjectMapper json) {
        this.pool = pool;
        this.json = json;
    }

    /**
     * Fire and forget: the caller already acted locally, and a server that misses the event catches up with the
     * registry when it (re)connects to the channel or restarts.
     */
    void emit(String streamId, LifecycleEvent.Action action) {
        String payload;
        try {
            payload = json.writeValueAsString(new LifecycleEvent(streamId, action, System.currentTimeMillis()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        pool.preparedQuery("SELECT pg_notify($1, $2)").execute(Tuple.of(LifecycleEvent.CHANNEL, payload))
                .ifNoItem().after(TIMEOUT).fail()
                .subscribe().with(ok -> { }, failure -> LOG.warnf(
                        "could not tell the other servers that stream %s %s: %s", streamId, action,
                        failure.getMessage()));
    }
}
