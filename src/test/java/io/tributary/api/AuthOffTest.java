package io.tributary.api;

import org.junit.jupiter.api.Tag;

import static io.restassured.RestAssured.given;
import static io.tributary.testing.Api.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/** Local mode without tokens or issuer: auth off, every caller is the admin 'local', loopback only, and it says so. */
@Tag("quarkus")
@QuarkusTest
@TestProfile(AuthOffTest.AuthOff.class)
class AuthOffTest {
    static final Path LOG = Path.of("target", "auth-off-test.log");

    public static class AuthOff implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "tributary.auth.tokens", "",
                    "tributary.admins", "",
                    "quarkus.log.file.enabled", "true",
                    "quarkus.log.file.path", LOG.toString());
        }
    }

    @Test
    void everyCallerIsTheAdminLocal() {
        String scope = unique("local");
        given().contentType("application/json").body("{\"scope\": \"" + scope + "\"}")
                .post("/api/2.0/secrets/scopes/create").then().statusCode(200);
        String connection = unique("localconn");
        given().contentType("application/json").header("Authorization", "Bearer anything")
                .body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                        + "{\"bootstrap_servers\": \"127.0.0.1:9\"}}")
                .post("/api/2.0/connections").then().statusCode(200).body("owner", equalTo("local"));
        given().get("/api/2.0/connections/" + connection).then().statusCode(200);
    }

    @Test
    void theServerListensOnLoopbackAndLogsWhy() throws Exception {
        assertThat(ConfigProvider.getConfig().getValue("quarkus.http.host", String.class)).isEqualTo("127.0.0.1");
        assertThat(Files.readString(LOG)).contains("Authentication is OFF").contains("127.0.0.1");
    }
}
