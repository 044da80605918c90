package io.tributary.api;

import org.junit.jupiter.api.Tag;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.CAROL;
import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.anonymous;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

@Tag("quarkus")
@QuarkusTest
class ConnectionsApiTest {

    static String saslConnection(String name) {
        return "{\"name\": \"" + name + "\", \"connection_type\": \"KAFKA\", \"options\": {"
                + "\"bootstrap_servers\": \"127.0.0.1:1,127.0.0.1:2\", \"sasl_mechanism\": \"SCRAM-SHA-512\", "
                + "\"user\": \"u\", \"password\": \"connection-password-xyz\", "
                + "\"schema_registry_url\": \"http://127.0.0.1:8081\", \"schema_registry_api_key\": \"key\"}}";
    }

    @Test
    void createGetListDeleteNeverShowThePassword() {
        String name = unique("Conn");
        as(ALICE).body(saslConnection(name)).post("/api/2.0/connections").then().statusCode(200)
                .body("name", equalTo(name.toLowerCase())).body("owner", equalTo("alice"))
                .body("options.sasl_mechanism", equalTo("SCRAM-SHA-512"))
                .body("options.password", nullValue())
                .body(not(containsString("connection-password-xyz")));
        as(ALICE).get("/api/2.0/connections/" + name).then().statusCode(200)
                .body("options.bootstrap_servers", equalTo("127.0.0.1:1,127.0.0.1:2"))
                .body(not(containsString("connection-password-xyz")));
        as(ALICE).get("/api/2.0/connections").then().statusCode(200)
                .body("connections.name", hasItem(name.toLowerCase()))
                .body(not(containsString("connection-password-xyz")));
        as(ALICE).body(saslConnection(name)).post("/api/2.0/connections").then().statusCode(409)
                .body("error_code", equalTo("RESOURCE_ALREADY_EXISTS"));
        as(ALICE).delete("/api/2.0/connections/" + name).then().statusCode(200).body(equalTo("{}"));
        as(ALICE).get("/api/2.0/connections/" + name).then().statusCode(404)
                .body("error_code", equalTo("RESOURCE_DOES_NOT_EXIST"));
    }

    @Test
    void grantsGovernWhoSeesAndManagesAConnection() {
        String name = unique("granted");
        as(ALICE).body(saslConnection(name)).post("/api/2.0/connections").then().statusCode(200);
        as(BOB).get("/api/2.0/connections/" + name).then().statusCode(403)
                .body("error_code", equalTo("PERMISSION_DENIED")).body("message", containsString("USE CONNECTION"));
        as(BOB).get("/api/2.0/connections").then().statusCode(200)
                .body("connections.name", not(hasItem(name)));
        as(BOB).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"USE CONNECTION\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/connection/" + name).then().statusCode(403);
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"USE CONNECTION\"], \"remove\": []}]}")
                .patch("/api/2.1/unity-catalog/permissions/connection/" + name).then().statusCode(200)
                .body("privilege_assignments[0].principal", equalTo("bob"))
                .body("privilege_assignments[0].privileges", hasItem("USE CONNECTION"));
        as(BOB).get("/api/2.0/connections/" + name).then().statusCode(200);
        as(BOB).get("/api/2.0/connections").then().statusCode(200).body("connections.name", hasItem(name));
        as(BOB).get("/api/2.1/unity-catalog/permissions/connection/" + name).then().statusCode(200);
        as(CAROL).get("/api/2.1/unity-catalog/permissions/connection/" + name).then().statusCode(403);
        as(BOB).delete("/api/2.0/connections/" + name).then().statusCode(403);
        as(ALICE).body("{\"changes\": [{\"principal\": \"carol\", \"add\": [\"MANAGE\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/connection/" + name).then().statusCode(200);
        as(CAROL).body("{\"changes\": [{\"principal\": \"bob\", \"remove\": [\"USE CONNECTION\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/connection/" + name).then().statusCode(200);
        as(BOB).get("/api/2.0/connections/" + name).then().statusCode(403);
        as(ROOT).get("/api/2.0/connections/" + name).then().statusCode(200);
        anonymous().get("/api/2.0/connections/" + name).then().statusCode(401);
        as(CAROL).delete("/api/2.0/connections/" + name).then().statusCode(200);
    }

    @Test
    void invalidPermissionChangesNameTheField() {
        String name = unique("perm");
        as(ALICE).body(saslConnection(name)).post("/api/2.0/connections").then().statusCode(200);
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"USE CONNECTION\", \"SELECT\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/connection/" + name).then().statusCode(400)
                .body("message", containsString("changes[0].add[1]"));
        as(ALICE).body("{\"changes\": [{\"add\": [\"MANAGE\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/connection/" + name).then().statusCode(400)
                .body("message", containsString("changes[0].principal"));
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"grant\": [\"MANAGE\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/connection/" + name).then().statusCode(400)
                .body("message", containsString("changes[0].grant"));
        as(ALICE).body("{\"changes\": []}").patch("/api/2.1/unity-catalog/permissions/volume/" + name).then()
                .statusCode(400).body("message", containsString("securable_type"));
        as(ALICE).get("/api/2.1/unity-catalog/permissions/connection/" + unique("absent")).then().statusCode(404);
    }

    @Test
    void optionsAreValidatedFieldByField() {
        String base = "{\"name\": \"" + unique("v") + "\", \"connection_type\": \"KAFKA\", \"options\": ";
        expect400(base + "{}}", "options.bootstrap_servers");
        expect400(base + "{\"bootstrap_servers\": \"no-port\"}}", "options.bootstrap_servers");
        expect400(base + "{\"bootstrap_servers\": \"h:1\", \"sasl_mechanism\": \"GSSAPI\", \"user\": \"u\", "
                + "\"password\": \"p\"}}", "options.sasl_mechanism");
        expect400(base + "{\"bootstrap_servers\": \"h:1\", \"sasl_mechanism\": \"PLAIN\", \"password\": \"p\"}}",
                "options.user");
        expect400(base + "{\"bootstrap_servers\": \"h:1\", \"sasl_mechanism\": \"PLAIN\", \"user\": \"u\"}}",
                "options.password");
        expect400(base + "{\"bootstrap_servers\": \"h:1\", \"credential\": \"c\", \"sasl_mechanism\": \"PLAIN\", "
                + "\"user\": \"u\", \"password\": \"p\"}}", "options");
        expect400(base + "{\"bootstrap_servers\": \"h:1\", \"security_protocol\": \"TLS\"}}",
                "options.security_protocol");
        expect400(base + "{\"bootstrap_servers\": \"h:1\", \"schema_registry_url\": \"ftp://x\"}}",
                "options.schema_registry_url");
        expect400(base + "{\"bootstrap_servers\": \"h:1\", \"colour\": \"red\"}}", "options.colour");
        expect400(base + "{\"bootstrap_servers\": \"h:1\", \"schema_registry_url\": \"http://r:1\", "
                + "\"schema_registry_api_secret\": {\"scope\": \"" + unique("nosuch") + "\", \"key\": \"k\"}}}",
                "options.schema_registry_api_secret.scope");
        expect400("{\"name\": \"x\", \"connection_type\": \"MYSQL\", \"options\": {\"bootstrap_servers\": \"h:1\"}}",
                "connection_type");
        expect400("{\"name\": \"bad name\", \"connection_type\": \"KAFKA\", \"options\": {\"bootstrap_servers\": "
                + "\"h:1\"}}", "name");
    }

    @Test
    void aConnectionInUseCannotBeDeleted() {
        // A stream needs a Delta table; the conflict check is exercised in StreamsApiTest once tables exist.
        as(ALICE).delete("/api/2.0/connections/" + unique("absent")).then().statusCode(404);
    }

    private static void expect400(String body, String field) {
        as(ALICE).body(body).post("/api/2.0/connections").then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", containsString(field));
    }
}
