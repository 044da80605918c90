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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every API request waits on {@link RegistryHealth#whenDown()} beside its work (api.RegistryGate). */
class RequestsWaitingOnHealthTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void aRequestThatFinishedLeavesNothingBehind() {
        RegistryHealth health = new RegistryHealth(vertx, Optional.empty(), Optional.empty(), Optional.empty(),
                probe(Duration.ofSeconds(1), Duration.ofSeconds(1)));
        for (int i = 0; i < 10_000; i++) {
            String answer = Uni.combine().any().of(Uni.createFrom().item("done"), health.whenDown())
                    .await().atMost(Duration.ofSeconds(5)).toString();
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
                Optional.of("u"), Optional.of("p"), probe(Duration.ofMillis(100), Duration.ofMillis(500)));
        Uni<Object> never = Uni.createFrom().nothing();
        assertThatThrownBy(() -> Uni.combine().any().of(never, health.whenDown()).await().atMost(Duration.ofSeconds(20)))
                .isInstanceOf(ApiException.class).hasMessageContaining("stopped answering while this request ran");
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
