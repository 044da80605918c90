package io.tributary.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.retry.Backoff;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Follows streams started or stopped through another server's API: every server {@code LISTEN}s on
 * {@value LifecycleEvent#CHANNEL} in the registry database and starts or stops its local pipeline. Its own events
 * find the work already done.
 *
 * <p>Why PostgreSQL and not a Kafka topic: every server already shares the registry database and cannot run without
 * it, while a control broker would be one more service to configure, and one whose absence stopped nothing but these
 * notifications yet was waited for before any stream started. A notification is delivered only to sessions listening
 * at the time (like a topic read from its end), so each time this listener (re)connects after having missed some
 * it brings this server in line with the registry ({@link StreamCatchUp}: starts what is missing here, stops what was
 * deleted). One pooled JDBC connection
 * is held for the listening session; the pool and its settings are the registry's own.
 */
@ApplicationScoped
class LifecycleListener {

    private static final Logger LOG = Logger.getLogger(LifecycleListener.class);
    /** The registry is asked again after this, doubling while it does not answer. */
    private static final Backoff BACKOFF = Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30));
    private static final int POLL_MS = 1000;
    /** A silent connection is probed this often, so a dead one is noticed and replaced. */
    private static final long PROBE_MS = 30_000;
    /**
     * How often this server compares its pipelines with the registry while it listens: a notification can be lost
     * without this session missing it (the announcing server killed between its commit and its {@code NOTIFY}, or
     * the {@code NOTIFY} timing out on a busy pool), and nothing else would start or stop the stream here.
     */
    static final Duration RECONCILE = Duration.ofSeconds(60);

    private final ServerPipelines pipelines;
    private final StreamDirectory directory;
    private final StreamCatchUp catchUp;
    private final UnresolvedStreams unresolved;
    private final DataSource database;
    private final ObjectMapper json;
    private final CountDownLatch firstListen = new CountDownLatch(1);
    /** The start-up scan stopped waiting for the first LISTEN, so it may have missed streams created before it. */
    private volatile boolean startupWentAhead;
    private volatile Thread thread;
    private volatile long reconcileMs = RECONCILE.toMillis();

    @Inject
    LifecycleListener(ServerPipelines pipelines, StreamDirectory directory, StreamCatchUp catchUp,
            UnresolvedStreams unresolved, DataSource database, ObjectMapper json) {
        this.pipelines = pipelines;
        this.directory = directory;
        this.catchUp = catchUp;
        this.unresolved = unresolved;
        this.database = database;
        this.json = json;
    }

    void onStart(@Observes StartupEvent event) {
        Thread t = new Thread(this::listen, "tributary-lifecycle-listener");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    /** Lets the thread give its connection back before the pool closes (which would warn about it). */
    void onStop(@Observes ShutdownEvent event) {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(POLL_MS * 2L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits at most {@code timeout} until the first {@code LISTEN} is in place, so a scan of the registry that starts
     * afterwards misses no stream created meanwhile; false if it is not (the scan goes ahead, and this listener
     * catches up once it listens).
     */
    boolean awaitListening(Duration timeout) {
        try {
            if (firstListen.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        startupWentAhead = true;
        return false;
    }

    private void listen() {
        boolean listenedBefore = false;
        Backoff.Retries retries = BACKOFF.retries();
        while (!Thread.currentThread().isInterrupted()) {
            long backoff = -1;
            try (Connection connection = database.getConnection()) {
                try {
                    PGConnection pg = connection.unwrap(PGConnection.class);
                    try (Statement s = connection.createStatement()) {
                        s.execute("LISTEN " + LifecycleEvent.CHANNEL);
                    }
                    long listeningSince = System.currentTimeMillis();
                    boolean missedSome = listenedBefore || startupWentAhead;
                    listenedBefore = true;
                    firstListen.countDown();
                    retries.reset();
                    LOG.debugf("listening for stream starts and stops on %s", LifecycleEvent.CHANNEL);
                    if (missedSome) {
                        int listed = catchUp.catchUp(listeningSince);
                        LOG.infof("following other servers' stream starts and stops again; caught up with %d "
                                + "registered streams", listed);
                    }
                    follow(connection, pg);
                } finally {
                    unlisten(connection);
                }
            } catch (Throwable e) {
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                backoff = retries.next().toMillis();
                LOG.warnf("not following other servers' stream starts and stops (retrying in %d ms; local streams "
                        + "keep running): %s", backoff, e.getMessage());
            }
            try {
                Thread.sleep(backoff < 0 ? retries.next().toMillis() : backoff);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Test seam: how often {@link #reconcile} runs while this server listens. */
    void reconcileEvery(Duration interval) {
        reconcileMs = interval.toMillis();
    }

    private void follow(Connection connection, PGConnection pg) throws SQLException {
        long lastHeard = System.currentTimeMillis();
        long lastReconciled = lastHeard;
        while (!Thread.currentThread().isInterrupted()) {
            PGNotification[] notifications = pg.getNotifications(POLL_MS);
            long now = System.currentTimeMillis();
            if (now - lastReconciled >= reconcileMs) {
                reconcile(now);
                lastReconciled = System.currentTimeMillis();
            }
            if (notifications != null && notifications.length > 0) {
                lastHeard = now;
                for (PGNotification n : notifications) {
                    on(n.getParameter());
                }
            } else if (now - lastHeard >= PROBE_MS) {
                // LISTEN again is a no-op that needs a round trip, and keeps the session's last query telling.
                try (Statement s = connection.createStatement()) {
                    s.execute("LISTEN " + LifecycleEvent.CHANNEL);
                }
                lastHeard = now;
            }
        }
    }

    /**
     * Starts what the registry lists and does not run here, stops what it no longer has. A stream stopped here within
     * the last interval is left alone (its delete may be under way: the stop comes before the registry rows go); one
     * the registry still lists after that is started again. Notifications queue on the session meanwhile.
     */
    private void reconcile(long now) {
        try {
            catchUp.reconcile(now - reconcileMs);
        } catch (Throwable e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.debugf("comparing this server's pipelines with the registry failed (next in %d ms): %s", reconcileMs,
                    e.getMessage());
        }
    }

    void on(String payload) {
        LifecycleEvent event;
        try {
            event = json.readValue(payload, LifecycleEvent.class);
        } catch (Exception e) {
            LOG.warnf("ignoring a malformed stream lifecycle event: %s", e.getMessage());
            return;
        }
        if (event.streamId() == null || event.action() == null) {
            LOG.warn("ignoring a stream lifecycle event without stream_id or action");
            return;
        }
        switch (event.action()) {
            case STOPPED -> pipelines.stopHere(event.streamId());
            case STARTED -> {
                if (pipelines.runsHere(event.streamId())) {
                    return;
                }
                Optional<PipelineSpec> spec;
                try {
                    spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(event.streamId()));
                } catch (Throwable e) {
                    LOG.warnf("could not load stream %s to start it here (tried again every %d s): %s",
                            event.streamId(), UnresolvedStreams.RETRY.toSeconds(), e.getMessage());
                    unresolved.leftOut(event.streamId(), event.streamId(), e.getMessage(), event.announcedAt());
                    return;
                }
                // Absent: the stream was deleted before this server caught up.
                spec.ifPresent(found -> pipelines.startAnnounced(found, event.announcedAt()));
            }
        }
    }

    /** The connection goes back to the pool: it must not keep collecting notifications there. */
    private static void unlisten(Connection connection) {
        try (Statement s = connection.createStatement()) {
            s.execute("UNLISTEN *");
        } catch (SQLException | RuntimeException e) {
            // a broken connection listens no more anyway
        }
    }
}
