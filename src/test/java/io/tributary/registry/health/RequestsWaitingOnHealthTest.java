package io.tributary.registry.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smallrye.mutiny.Uni;
import io.tributary.config.RegistryProbeConfig;
import io.tributary.registry.request.ApiException;
import io.vertx.core.Vertx;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every API request runs through {@link RegistryHealth#untilDown} (api.RegistryGate). */
class RequestsWaitingOnHealthTest {

    private final Vertx vertx = Vertx.vertx();
    private static final org.eclipse.microprofile.config.Config NO_SETTINGS =
            new io.smallrye.config.SmallRyeConfigBuilder().build();

    @AfterEach
    void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void aRequestThatFinishedLeavesNothingBehind() {
        RegistryHealth health = new RegistryHealth(vertx, Optional.empty(), Optional.empty(), Optional.empty(),
                probe(Duration.ofSeconds(1), Duration.ofSeconds(1)), NO_SETTINGS);
        for (int i = 0; i < 10_000; i++) {
            String answer = health.untilDown(Uni.createFrom().item("done")).await().atMost(Duration.ofSeconds(5));
            assertThat(answer).isEqualTo("done");
        }
        assertThat(health.waitingRequests()).as("requests still held after they finished").isZero();
    }

    @Test
    void aRequestUnderWayFailsWhenTheDatabaseIsFoundDown() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing answers there
        }
        RegistryHealth health = new RegistryHealth(vertx, Optional.of("postgresql://127.0.0.1:" + port + "/registry"),
                Optional.of("u"), Optional.of("p"), probe(Duration.ofMillis(100), Duration.ofMillis(500)), NO_SETTINGS);
        AtomicBoolean cancelled = new AtomicBoolean();
        Uni<Object> never = Uni.createFrom().nothing().onCancellation().invoke(() -> cancelled.set(true));
        assertThatThrownBy(() -> health.untilDown(never).await().atMost(Duration.ofSeconds(20)))
                .isInstanceOf(ApiException.class).hasMessageContaining("stopped answering while this request ran");
        assertThat(health.waitingRequests()).isZero();
        // The work ends on its own (a transaction cut off rolls back or commits): cancelled, a Hibernate Reactive
        // session ran on with its request gone.
        assertThat(cancelled).as("the work under way was cancelled by the outage").isFalse();
    }

    @Test
    void aFailedRequestFailsWithItsOwnError() {
        RegistryHealth health = new RegistryHealth(vertx, Optional.empty(), Optional.empty(), Optional.empty(),
                probe(Duration.ofSeconds(1), Duration.ofSeconds(1)), NO_SETTINGS);
        assertThatThrownBy(() -> health.untilDown(Uni.createFrom().failure(new IllegalStateException("its own")))
                .await().atMost(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class).hasMessage("its own");
        assertThat(health.waitingRequests()).isZero();
    }

    private static RegistryProbeConfig probe(Duration interval, Duration timeout) {
        return new RegistryProbeConfig() {
            @Override
            public Duration probeInterval() {
                return interval;
            }

            @Override
            public Duration probeTimeout() {
                return timeout;
            }
        };
    }
}
