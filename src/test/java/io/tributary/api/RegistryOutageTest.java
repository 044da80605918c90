package io.tributary.api;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.config.HttpClientConfig;
import io.restassured.config.RestAssuredConfig;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.tributary.testing.RegistryBehindProxy;
import io.tributary.testing.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The registry database goes away while the API serves (SPEC 2, 503 TEMPORARILY_UNAVAILABLE): first refusing
 * connections (a stopped server), then accepting them and answering nothing (a network partition, which no client
 * timeout of the pool or of JDBC bounds). Every call answers within the client's 5 s socket timeout, with a 503 that
 * names the database, changes nothing, and everything works again by itself once the database is back.
 */
@Tag("quarkus")
@QuarkusTest
@TestProfile(RegistryBehindProxy.class)
class RegistryOutageTest {
    static final String CONNECTIONS = "/api/2.0/connections";
    /** Longer than the probe needs to find the database down, much shorter than a hang. */
    static final RestAssuredConfig FIVE_SECONDS = RestAssuredConfig.config().httpClient(HttpClientConfig
            .httpClientConfig().setParam("http.socket.timeout", 5000).setParam("http.connection.timeout", 5000));

    @AfterEach
    void databaseBack() {
        RegistryBehindProxy.proxy().mode(TcpProxy.Mode.FORWARD);
    }

    @Test
    void refusedConnections() {
        outage(TcpProxy.Mode.REFUSE);
    }

    @Test
    void partition() {
        outage(TcpProxy.Mode.BLACKHOLE);
    }

    private void outage(TcpProxy.Mode mode) {
        String before = unique("before");
        call().body(connection(before)).post(CONNECTIONS).then().statusCode(200);

        RegistryBehindProxy.proxy().mode(mode);
        String during = unique("during");
        List<Integer> statuses = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Response r = call().get(CONNECTIONS + "/" + before);
            statuses.add(r.statusCode());
            assertThat(r.statusCode()).as(r.asString()).isEqualTo(503);
            assertThat(r.jsonPath().getString("error_code")).isEqualTo("TEMPORARILY_UNAVAILABLE");
            assertThat(r.jsonPath().getString("message")).contains("registry database").contains("retry");
            assertThat(r.header("Retry-After")).isNotNull();
        });
        assertThat(statuses).as("never a 500, even before the outage is known").containsOnly(503);
        // Once the outage is known, every call is answered at once, writes included, and none has an effect.
        for (int i = 0; i < 5; i++) {
            Response write = call().body(connection(during)).post(CONNECTIONS);
            assertThat(write.statusCode()).as(write.asString()).isEqualTo(503);
            Response list = call().get(CONNECTIONS);
            assertThat(list.statusCode()).as(list.asString()).isEqualTo(503);
            Response stream = call().get("/api/2.0/feature-engineering/streams/main.s.nothing");
            assertThat(stream.statusCode()).as(stream.asString()).isEqualTo(503);
        }

        RegistryBehindProxy.proxy().mode(TcpProxy.Mode.FORWARD);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(
                () -> call().get(CONNECTIONS + "/" + before).then().statusCode(200));
        call().get(CONNECTIONS + "/" + during).then().statusCode(404);
        call().body(connection(during)).post(CONNECTIONS).then().statusCode(200);
    }

    private static RequestSpecification call() {
        return as(ALICE).config(FIVE_SECONDS);
    }

    private static String connection(String name) {
        return "{\"name\": \"" + name + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"127.0.0.1:9\"}}";
    }
}
