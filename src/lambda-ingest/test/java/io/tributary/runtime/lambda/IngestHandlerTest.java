package io.tributary.runtime.lambda;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;

import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The handler behind Quarkus's mock event server. That server does not pass Lambda-Runtime-Invoked-Function-Arn, so
 * an invocation here has no stream alias and must fail (the mapping would redeliver, nothing is skipped);
 * StreamIngestionTest covers what happens once the alias names a stream.
 */
@Tag("quarkus")
@QuarkusTest
class IngestHandlerTest {

    @Test
    void anInvocationWithoutAStreamAliasFailsInsteadOfSkippingTheBatch() {
        String event = IngestFixtures.mskEvent(List.of(new IngestFixtures.Rec("tx", 0, 0, 1L, "k", "{\"id\":\"a\"}")));
        given().contentType("application/json").body(event)
                .when().post()
                .then().statusCode(500)
                .body(containsString("cannot tell which stream"));
    }
}
