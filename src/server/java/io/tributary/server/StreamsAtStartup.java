package io.tributary.server;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tributary.retry.Backoff;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * On server start: starts every registered stream. Runs in the background and retries, because the database may
 * still be coming up (in local mode, or after a crash of both). It needs the registry only: the lifecycle channel
 * is waited for a few seconds at most, so that no stream another server creates meanwhile is missed.
 */
@ApplicationScoped
class StreamsAtStartup {

    private static final Logger LOG = Logger.getLogger(StreamsAtStartup.class);
    private static final Duration LISTENER_WAIT = Duration.ofSeconds(5);
    /** The registry is asked again after this, doubling while it does not answer. */
    private static final Backoff BACKOFF = Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30));

    private final StreamCatchUp catchUp;
    private final LifecycleListener lifecycle;
    private final IngestConfig config;
    private volatile Thread starter;

    @Inject
    StreamsAtStartup(StreamCatchUp catchUp, LifecycleListener lifecycle, IngestConfig config) {
        this.catchUp = catchUp;
        this.lifecycle = lifecycle;
        this.config = config;
    }

    void onStart(@Observes StartupEvent event) {
        // A setting no pipeline can run with stops the server here, naming it, as a short vacuum retention does:
        // found later, by the pipelines, it left a server that answered ready while no stream ever started.
        PipelineSettings.of(config);
        Thread t = new Thread(this::startAll, "tributary-start-streams");
        t.setDaemon(true);
        starter = t;
        t.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        Thread t = starter;
        if (t != null) {
            t.interrupt();
        }
    }

    private void startAll() {
        if (!lifecycle.awaitListening(LISTENER_WAIT)) {
            LOG.warn("starting the registered streams before following other servers' stream starts and stops");
        }
        Backoff.Retries retries = BACKOFF.retries();
        while (!Thread.currentThread().isInterrupted()) {
            try {
                int started = catchUp.catchUp(System.currentTimeMillis());
                LOG.infof("started the pipelines of %d registered streams", started);
                return;
            } catch (Throwable e) {
                long backoff = retries.next().toMillis();
                LOG.warnf("starting the registered streams failed, retrying in %d ms: %s", backoff, e.getMessage());
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }
}
