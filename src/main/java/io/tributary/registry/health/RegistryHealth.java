package io.tributary.registry.health;

import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.tributary.config.RegistryProbeConfig;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.ErrorCode;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Whether the registry database answers, probed every {@code tributary.registry.probe-interval} on a connection of its
 * own. Neither the reactive pool nor JDBC bounds how long a statement may wait on a database that stopped answering
 * (a network partition keeps the TCP connection open for many minutes), so without this a request would hang; with
 * it, requests are refused at once while the database is down and those already waiting fail as soon as the probe
 * sees it go ({@link #untilDown}), both as 503 TEMPORARILY_UNAVAILABLE.
 *
 * <p>A connection of its own rather than the pool's: a pool busy under load must not read as an outage.
 */
@ApplicationScoped
public class RegistryHealth {
    private static final Logger LOG = Logger.getLogger(RegistryHealth.class);

    private final Vertx vertx;
    private final Optional<String> url;
    /** The probe connects as the registry's pool does, TLS included. */
    private final Optional<PgConnectOptions> options;
    private final Optional<String> user;
    private final Optional<String> password;
    private final Duration interval;
    private final Duration timeout;
    /**
     * Requests under way, failed when the database is found down. Each leaves the set when it ends, however it ends:
     * a shared future with a dependent stage per request kept every finished request's stage until the next outage.
     */
    private final Set<UniEmitter<?>> waiting = ConcurrentHashMap.newKeySet();
    private volatile String failure;
    private volatile PgConnection connection;
    private final java.util.concurrent.atomic.AtomicBoolean started = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile long timer = -1;
    /** The last probe went unanswered; one more unanswered and the database counts as down. */
    private volatile boolean unanswered;
    /** The probe under way, if any. */
    private Promise<Boolean> round;

    @Inject
    RegistryHealth(Vertx vertx, @ConfigProperty(name = "quarkus.datasource.reactive.url") Optional<String> url,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> user,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password, RegistryProbeConfig probe,
            org.eclipse.microprofile.config.Config config) {
        this.vertx = vertx;
        this.url = url.map(u -> u.split(",")[0].trim());
        this.options = this.url.map(u -> io.tributary.config.RegistryConnectOptions.withTls(
                PgConnectOptions.fromUri(u), config));
        this.user = user;
        this.password = password;
        this.interval = probe.probeInterval();
        this.timeout = probe.probeTimeout();
    }

    /**
     * The probe runs from the first API call on, not from start-up: the ingest and backfill functions share this
     * package but serve no API, and must not hold a database connection each for it.
     */
    private void ensureStarted() {
        if (url.isPresent() && !started.get() && started.compareAndSet(false, true)) {
            timer = vertx.setPeriodic(0, interval.toMillis(), id -> probe());
        }
    }

    public void onStop(@Observes ShutdownEvent event) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
        PgConnection c = connection;
        if (c != null) {
            c.close();
        }
    }

    /** Null while the database answers; otherwise what is wrong, for a 503's message. */
    public String failure() {
        ensureStarted();
        return failure;
    }

    /**
     * {@code work}'s outcome, or 503 TEMPORARILY_UNAVAILABLE as soon as the database is found down while it runs (at
     * once if it is down now). The work is not cancelled by the outage: it ends on its own (a transaction cut off
     * mid-way fails and rolls back, or commits if its COMMIT got through) and its outcome is then dropped. Cancelling
     * it instead (Mutiny's {@code Uni.combine().any()}) left a Hibernate Reactive session running on after its
     * cancellation, and cost every request two exceptions with full stack traces (the cancelled futures'), although
     * nearly every request ends long before any outage.
     */
    public <T> Uni<T> untilDown(Uni<T> work) {
        ensureStarted();
        return Uni.createFrom().emitter(request -> {
            waiting.add(request);
            request.onTermination(() -> waiting.remove(request));
            // After the add: an outage found before it is seen here, one found after it fails the request there.
            if (failure != null) {
                waiting.remove(request);
                request.fail(lostDuring());
                return;
            }
            // An emitter takes its first outcome only: the work's after an outage's failure is ignored.
            work.subscribe().with(item -> {
                waiting.remove(request);
                request.complete(item);
            }, e -> {
                waiting.remove(request);
                request.fail(e);
            });
        });
    }

    /** How many requests wait on {@link #untilDown} now (for tests: finished requests must not stay). */
    int waitingRequests() {
        return waiting.size();
    }

    /** The 503 for a request that needs the database while it does not answer. */
    public ApiException unavailable() {
        String why = failure;
        return new ApiException(ErrorCode.TEMPORARILY_UNAVAILABLE, "the registry database "
                + url.map(RegistryHealth::hostOf).orElse("") + " is not answering"
                + (why == null ? "" : " (" + why + ")") + "; the request changed nothing, retry in a few seconds");
    }

    /**
     * The 503 for a request the outage caught under way: it may have been committed just before (a COMMIT whose
     * answer was lost), so unlike {@link #unavailable()} it does not say that nothing changed.
     */
    private ApiException lostDuring() {
        String why = failure;
        return new ApiException(ErrorCode.TEMPORARILY_UNAVAILABLE, "the registry database "
                + url.map(RegistryHealth::hostOf).orElse("") + " stopped answering while this request ran"
                + (why == null ? "" : " (" + why + ")") + "; it may or may not have been applied: read the object "
                + "back once the database answers, then retry if needed");
    }

    /**
     * Asks the database now (joining a probe already under way): true when it answers within the probe timeout. For
     * a request that failed in a way that may be an outage the probe has not seen yet.
     */
    public Uni<Boolean> answers() {
        if (url.isEmpty()) {
            return Uni.createFrom().item(true);
        }
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        probe().onComplete(r -> answer.complete(r.succeeded() && r.result()));
        return Uni.createFrom().completionStage(answer);
    }

    /** One probe round, or the one under way (the timer and failed requests ask from different event loops). */
    private synchronized Future<Boolean> probe() {
        if (round != null) {
            return round.future();
        }
        Promise<Boolean> current = Promise.promise();
        round = current;
        long deadline = vertx.setTimer(timeout.toMillis(), id -> {
            if (finish(current)) {
                dropConnection();
                if (failure == null && !unanswered) {
                    // One probe without an answer may be a busy machine (a late timer, a slow event loop) rather
                    // than a lost database: ask once more at once, on a new connection, before failing requests.
                    unanswered = true;
                    probe().onComplete(r -> current.tryComplete(r.succeeded() && r.result()));
                    return;
                }
                markDown("no answer within " + timeout.toMillis() + " ms, twice");
                current.tryComplete(false);
            }
        });
        connected().compose(c -> c.query("SELECT 1").execute()).onComplete(result -> {
            vertx.cancelTimer(deadline);
            if (!finish(current)) {
                return; // the deadline already decided this round
            }
            if (result.succeeded()) {
                unanswered = false;
                markUp();
            } else {
                markDown(describe(result.cause()));
                dropConnection();
            }
            current.tryComplete(result.succeeded());
        });
        return current.future();
    }

    /** Ends {@code current} as the round under way; false when the deadline or the answer already ended it. */
    private synchronized boolean finish(Promise<Boolean> current) {
        if (round != current) {
            return false;
        }
        round = null;
        return true;
    }

    private Future<PgConnection> connected() {
        PgConnection c = connection;
        if (c != null) {
            return Future.succeededFuture(c);
        }
        PgConnectOptions options = new PgConnectOptions(this.options.get());
        user.ifPresent(options::setUser);
        password.ifPresent(options::setPassword);
        options.setConnectTimeout((int) timeout.toMillis());
        return PgConnection.connect(vertx, options).onSuccess(opened -> {
            connection = opened;
            opened.closeHandler(v -> {
                if (connection == opened) {
                    connection = null;
                }
            });
        });
    }

    private void dropConnection() {
        PgConnection c = connection;
        connection = null;
        if (c != null) {
            c.close();
        }
    }

    private void markDown(String why) {
        if (failure == null) {
            LOG.warnf("the registry database is not answering: %s; API requests get 503 until it does", why);
        }
        failure = why;
        for (UniEmitter<?> request : waiting) {
            // Out of the set before its caller hears of the failure, which may run on at once on another thread.
            waiting.remove(request);
            request.fail(lostDuring());
        }
    }

    private void markUp() {
        if (failure != null) {
            LOG.infof("the registry database answers again");
            failure = null;
        }
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? "the connection failed" : message;
    }

    private static String hostOf(String url) {
        try {
            PgConnectOptions o = PgConnectOptions.fromUri(url);
            return "at " + o.getHost() + ":" + o.getPort();
        } catch (RuntimeException e) {
            return "";
        }
    }
}
