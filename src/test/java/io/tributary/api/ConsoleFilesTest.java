package io.tributary.api;

import static io.tributary.testing.Api.anonymous;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The web console's files are served without a token (they hold no data; the console sends the user's token with
 * every API call) by the server and, in the stream-api build, by the function through API Gateway events — the
 * route Terraform gives them (function.trigger.public-routes). The API itself still refuses an anonymous caller.
 */
@Tag("quarkus")
@QuarkusTest
class ConsoleFilesTest {

    @Test
    void theConsoleIsServedWithoutATokenAndTheApiIsNot() {
        anonymous().get("/console/").then().statusCode(200)
                .header("Content-Type", containsString("text/html"))
                .header("Content-Security-Policy", containsString("default-src 'none'"))
                .header("Cache-Control", equalTo("no-cache"))
                .body(containsString("<script src=\"console.js\"></script>"));
        anonymous().get("/console/console.js").then().statusCode(200)
                .header("Content-Type", containsString("javascript"))
                .body(containsString("'Authorization'"));
        anonymous().get("/console/console.css").then().statusCode(200)
                .header("Content-Type", containsString("text/css"));
        anonymous().redirects().follow(false).get("/console").then().statusCode(302)
                .header("Location", equalTo("console/"));
        anonymous().get("/api/2.0/feature-engineering/streams?catalog_name=main").then().statusCode(401);
    }
}
