package io.tributary.registry.health;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.tributary.config.RegistryProbeConfig;
import io.tributary.testing.TcpProxy;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The probe behind the API's 503s, against the real PostgreSQL through a proxy: a database that stops answering is
 * found down, and one answer that comes late (a busy machine) is not taken for an outage, which would fail every
 * request in flight (seen under bench/load).
 */
class RegistryHealthTest {
    private static final Duration TIMEOUT = Duration.ofMillis(1500);
    private final Vertx vertx = Vertx.vertx();
    private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
    private TcpProxy proxy;
    private RegistryHealth health;

    @BeforeEach
    void start() throws Exception {
        proxy = new TcpProxy(5432);
        RegistryProbeConfig probe = new RegistryProbeConfig() {
            @Override
            public Duration probeInterval() {
                return Duration.ofSeconds(1);
            }

            @Override
            public Duration probeTimeout() {
                return TIMEOUT;
            }
        };
        health = new RegistryHealth(vertx, Optional.of("postgresql://127.0.0.1:" + proxy.port() + "/postgres"),
                Optional.of("postgres"), Optional.empty(), probe,
                new io.smallrye.config.SmallRyeConfigBuilder().build());
        assertNull(health.failure(), "starts the probe");
        await().atMost(Duration.ofSeconds(10)).until(() -> health.answers().await().indefinitely());
    }

    @AfterEach
    void stop() throws Exception {
        later.shutdownNow();
        health.onStop(null);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        proxy.close();
    }

    @Test
    void oneLateAnswerIsNotAnOutage() {
        proxy.mode(TcpProxy.Mode.BLACKHOLE);
        later.schedule(() -> proxy.mode(TcpProxy.Mode.FORWARD), TIMEOUT.toMillis() + 500, TimeUnit.MILLISECONDS);
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(6)).until(() -> health.failure() == null);
    }

    @Test
    void aDatabaseThatStopsAnsweringIsFoundDown() {
        proxy.mode(TcpProxy.Mode.BLACKHOLE);
        await().atMost(Duration.ofSeconds(5)).until(() -> health.failure() != null);
        proxy.mode(TcpProxy.Mode.FORWARD);
        await().atMost(Duration.ofSeconds(10)).until(() -> health.failure() == null);
    }
}
