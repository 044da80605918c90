package io.tributary.api;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.anonymous;
import static io.tributary.testing.Api.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The synced-table lookup is served by a plain route ({@link LookupRoute}) in front of the REST method: its refusals
 * must be the ones every other endpoint gives (SPEC 2), whichever of the two answers. Present, missing and NULL keys
 * and access control are in SyncedTablesServerTest; the registry gate in RegistryOutageTest.
 */
@Tag("quarkus")
@QuarkusTest
class LookupRouteTest {
    static final String LOOKUP = "/api/2.0/database/synced_tables/main.s.no_such_table/lookup";
    static final String KEY = "{\"keys\": [{\"value_id\": \"u1\"}]}";

    @Test
    void withoutCredentials401() {
        anonymous().body(KEY).post(LOOKUP).then().statusCode(401).header("WWW-Authenticate", "Bearer")
                .contentType("application/json").body("error_code", equalTo("UNAUTHENTICATED"));
        anonymous().header("Authorization", "Bearer wrong").body(KEY).post(LOOKUP).then().statusCode(401)
                .body("error_code", equalTo("UNAUTHENTICATED"));
    }

    @Test
    void badBodies400() {
        as(ALICE).body("{").post(LOOKUP).then().statusCode(400).contentType("application/json")
                .body("error_code", equalTo("MALFORMED_REQUEST"));
        as(ALICE).body("").post(LOOKUP).then().statusCode(400).body("error_code", equalTo("MALFORMED_REQUEST"))
                .body("message", containsString("empty"));
        as(ALICE).body("{\"keys\": [], \"extra\": 1}").post(LOOKUP).then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE")).body("message", containsString("extra"));
        as(ALICE).body("{\"keys\": []}").post(LOOKUP).then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE")).body("message", containsString("keys"));
        as(ALICE).body("{\"keys\": []}").post("/api/2.0/database/synced_tables/onlyone/lookup").then()
                .statusCode(400).body("error_code", equalTo("INVALID_PARAMETER_VALUE"));
    }

    @Test
    void missingTable404() {
        Response r = as(ALICE).body(KEY).post(LOOKUP);
        assertThat(r.statusCode()).as(r.asString()).isEqualTo(404);
        assertThat(r.contentType()).startsWith("application/json");
        assertThat(r.jsonPath().getString("error_code")).isEqualTo("RESOURCE_DOES_NOT_EXIST");
        assertThat(r.jsonPath().getString("message")).contains("main.s.no_such_table");
    }

    /** A body without a length and an Accept that rules JSON out are left to the REST layer: the same answers. */
    @Test
    void chunkedBodyAndAcceptAnswerAsBefore() {
        Response chunked = as(ALICE).body(new ByteArrayInputStream(KEY.getBytes(StandardCharsets.UTF_8)))
                .post(LOOKUP);
        assertThat(chunked.statusCode()).as(chunked.asString()).isEqualTo(404);
        assertThat(chunked.jsonPath().getString("error_code")).isEqualTo("RESOURCE_DOES_NOT_EXIST");
        as(ALICE).accept("text/plain").body(KEY).post(LOOKUP).then().statusCode(406)
                .body("error_code", equalTo("MALFORMED_REQUEST"));
        as(ALICE).accept("text/plain, application/json").body(KEY).post(LOOKUP).then().statusCode(404);
    }

    @Test
    void otherMethodsAndSizes() {
        as(ALICE).get(LOOKUP).then().statusCode(405).body("error_code", equalTo("INVALID_PARAMETER_VALUE"));
        String big = "{\"keys\": [{\"value_id\": \"" + "x".repeat(5 * 1024 * 1024) + "\"}]}";
        as(ALICE).body(big).post(LOOKUP).then().statusCode(413).body("error_code", equalTo("REQUEST_TOO_LARGE"));
    }

    /** The request metrics name the endpoint by its template, as for every REST endpoint, not by each table. */
    @Test
    void metricsNameTheTemplate() {
        as(ALICE).body(KEY).post(LOOKUP).then().statusCode(404);
        String metrics = io.restassured.RestAssured.given().get("/q/metrics").then().statusCode(200).extract()
                .asString();
        java.util.List<String> lookups = metrics.lines().filter(l -> l.startsWith("http_server_requests_seconds_count")
                && l.contains("status=\"404\"")).toList();
        assertThat(lookups).anyMatch(l -> l.contains("uri=\"/api/2.0/database/synced_tables/{name}/lookup\""))
                .noneMatch(l -> l.contains("no_such_table") || l.contains(":name"));
    }

    @Test
    void acceptHeaders() {
        assertThat(LookupRoute.acceptsJson(null)).isTrue();
        assertThat(LookupRoute.acceptsJson("*/*")).isTrue();
        assertThat(LookupRoute.acceptsJson("text/html, application/json")).isTrue();
        assertThat(LookupRoute.acceptsJson("text/plain")).isFalse();
        assertThat(LookupRoute.acceptsJson("application/json;q=0.5")).isFalse(); // negotiated by the REST layer
    }
}
