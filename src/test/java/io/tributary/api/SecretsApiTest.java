package io.tributary.api;

import org.junit.jupiter.api.Tag;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.anonymous;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

@Tag("quarkus")
@QuarkusTest
class SecretsApiTest {

    @Test
    void ownerPutsListsAndDeletesSecretsWithoutEverSeeingValues() {
        String scope = unique("scope");
        as(ALICE).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create")
                .then().statusCode(200).body(equalTo("{}"));
        as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"pw\", \"string_value\": \"s3cr3t-value\"}")
                .post("/api/2.0/secrets/put").then().statusCode(200);
        as(ALICE).queryParam("scope", scope).get("/api/2.0/secrets/list").then().statusCode(200)
                .body("secrets", hasSize(1)).body("secrets[0].key", equalTo("pw"))
                .body("secrets[0].last_updated_timestamp", notNullValue())
                .body(not(containsString("s3cr3t-value")));
        as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"pw\"}").post("/api/2.0/secrets/delete")
                .then().statusCode(200);
        as(ALICE).queryParam("scope", scope).get("/api/2.0/secrets/list").then().statusCode(200)
                .body("secrets", hasSize(0));
    }

    @Test
    void scopeNamesAreCaseInsensitiveAndUnique() {
        String scope = unique("Scope");
        as(ALICE).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create").then().statusCode(200);
        as(BOB).body("{\"scope\": \"" + scope.toUpperCase() + "\"}").post("/api/2.0/secrets/scopes/create")
                .then().statusCode(409).body("error_code", equalTo("RESOURCE_ALREADY_EXISTS"))
                .body("message", containsString("scope"));
    }

    @Test
    void aclsGovernReadAndWrite() {
        String scope = unique("acl");
        as(ALICE).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create").then().statusCode(200);
        as(BOB).queryParam("scope", scope).get("/api/2.0/secrets/list").then().statusCode(403)
                .body("error_code", equalTo("PERMISSION_DENIED"));
        as(BOB).body("{\"scope\": \"" + scope + "\", \"principal\": \"bob\", \"permission\": \"READ\"}")
                .post("/api/2.0/secrets/acls/put").then().statusCode(403);
        as(ALICE).body("{\"scope\": \"" + scope + "\", \"principal\": \"bob\", \"permission\": \"READ\"}")
                .post("/api/2.0/secrets/acls/put").then().statusCode(200);
        as(BOB).queryParam("scope", scope).get("/api/2.0/secrets/list").then().statusCode(200);
        as(BOB).body("{\"scope\": \"" + scope + "\", \"key\": \"k\", \"string_value\": \"v\"}")
                .post("/api/2.0/secrets/put").then().statusCode(403);
        as(ALICE).body("{\"scope\": \"" + scope + "\", \"principal\": \"bob\", \"permission\": \"WRITE\"}")
                .post("/api/2.0/secrets/acls/put").then().statusCode(200);
        as(BOB).body("{\"scope\": \"" + scope + "\", \"key\": \"k\", \"string_value\": \"v\"}")
                .post("/api/2.0/secrets/put").then().statusCode(200);
        as(ROOT).queryParam("scope", scope).get("/api/2.0/secrets/list").then().statusCode(200)
                .body("secrets", hasSize(1));
    }

    @Test
    void badRequestsNameTheField() {
        String scope = unique("bad");
        as(ALICE).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create").then().statusCode(200);
        as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"k\"}").post("/api/2.0/secrets/put").then()
                .statusCode(400).body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", containsString("string_value"));
        as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"k\", \"value\": \"v\"}")
                .post("/api/2.0/secrets/put").then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE")).body("message", containsString("value"));
        as(ALICE).body("{\"scope\": \"" + scope + "\", \"principal\": \"bob\", \"permission\": \"OWN\"}")
                .post("/api/2.0/secrets/acls/put").then().statusCode(400).body("message", containsString("permission"));
        as(ALICE).body("{\"scope\": \"no such scope!\"}").post("/api/2.0/secrets/scopes/create").then()
                .statusCode(400).body("message", containsString("scope"));
        as(ALICE).body("{\"scope\": \"" + unique("missing") + "\", \"key\": \"k\", \"string_value\": \"v\"}")
                .post("/api/2.0/secrets/put").then().statusCode(404)
                .body("error_code", equalTo("RESOURCE_DOES_NOT_EXIST"));
        as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"absent\"}").post("/api/2.0/secrets/delete")
                .then().statusCode(404);
        as(ALICE).body("{\"scope\": ").post("/api/2.0/secrets/scopes/create").then().statusCode(400)
                .body("error_code", equalTo("MALFORMED_REQUEST"));
        as(ALICE).body("").post("/api/2.0/secrets/scopes/create").then().statusCode(400)
                .body("error_code", equalTo("MALFORMED_REQUEST"));
    }

    @Test
    void requestsWithoutValidCredentialsAreRejected() {
        anonymous().queryParam("scope", "x").get("/api/2.0/secrets/list").then().statusCode(401)
                .body("error_code", equalTo("UNAUTHENTICATED"));
        as("wrong-token").queryParam("scope", "x").get("/api/2.0/secrets/list").then().statusCode(401)
                .body("error_code", equalTo("UNAUTHENTICATED")).body(not(containsString("wrong-token")));
    }
}
