package io.tributary.api;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The same request sent many times at once, as clients that retry or several users do: each race has one winner and
 * the losers hear why (409 or 404), never a 500, and grants are idempotent. Found by bench/load, where concurrent
 * deletes of one connection answered 500 and concurrent grants of one privilege failed on grants_unique.
 */
@Tag("quarkus")
@QuarkusTest
class ConcurrentRequestsTest {
    private static final int AT_ONCE = 12;
    private static final int ROUNDS = 4;
    private static final ExecutorService POOL = Executors.newFixedThreadPool(AT_ONCE);

    @AfterAll
    static void stop() {
        POOL.shutdownNow();
    }

    /** Status code → how many of the requests, sent all at once, answered with it. */
    private static Map<Integer, Integer> atOnce(Supplier<Response> request) throws Exception {
        CyclicBarrier start = new CyclicBarrier(AT_ONCE);
        List<Future<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < AT_ONCE; i++) {
            answers.add(POOL.submit(() -> {
                start.await();
                return request.get().statusCode();
            }));
        }
        Map<Integer, Integer> counts = new TreeMap<>();
        for (Future<Integer> a : answers) {
            counts.merge(a.get(), 1, Integer::sum);
        }
        return counts;
    }

    private static String connection(String name) {
        return "{\"name\": \"" + name + "\", \"connection_type\": \"KAFKA\", \"options\": {\"bootstrap_servers\": "
                + "\"127.0.0.1:1\"}}";
    }

    @Test
    void oneCreateOfANameWinsAndTheOthersHear409() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            String name = unique("race");
            assertEquals(Map.of(200, 1, 409, AT_ONCE - 1),
                    atOnce(() -> as(ALICE).body(connection(name)).post("/api/2.0/connections")), "round " + round);
        }
    }

    @Test
    void oneDeleteWinsAndTheOthersHear404() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            String name = unique("gone");
            as(ALICE).body(connection(name)).post("/api/2.0/connections").then().statusCode(200);
            assertEquals(Map.of(200, 1, 404, AT_ONCE - 1),
                    atOnce(() -> as(ALICE).delete("/api/2.0/connections/" + name)), "round " + round);
        }
    }

    @Test
    void theSameGrantAtOnceSucceedsEveryTimeAndIsHeldOnce() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            String name = unique("granted");
            as(ALICE).body(connection(name)).post("/api/2.0/connections").then().statusCode(200);
            assertEquals(Map.of(200, AT_ONCE), atOnce(() -> as(ALICE)
                    .body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"USE CONNECTION\"], \"remove\": []}]}")
                    .patch("/api/2.1/unity-catalog/permissions/connection/" + name)), "round " + round);
            as(ALICE).get("/api/2.1/unity-catalog/permissions/connection/" + name).then().statusCode(200)
                    .body("privilege_assignments.size()", equalTo(1))
                    .body("privilege_assignments[0].privileges.size()", equalTo(1));
        }
    }

    @Test
    void oneScopeCreateWinsAndTheOthersHear409() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            String scope = unique("scope");
            assertEquals(Map.of(200, 1, 409, AT_ONCE - 1), atOnce(() -> as(ALICE)
                    .body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create")), "round " + round);
        }
    }

    @Test
    void theSameSecretPutAtOnceSucceedsEveryTimeAndIsHeldOnce() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            String scope = unique("puts");
            as(ALICE).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create").then()
                    .statusCode(200);
            assertEquals(Map.of(200, AT_ONCE), atOnce(() -> as(ALICE).body("{\"scope\": \"" + scope
                    + "\", \"key\": \"pw\", \"string_value\": \"v\"}").post("/api/2.0/secrets/put")), "round " + round);
            as(ALICE).get("/api/2.0/secrets/list?scope=" + scope).then().statusCode(200)
                    .body("secrets.size()", equalTo(1));
        }
    }
}
