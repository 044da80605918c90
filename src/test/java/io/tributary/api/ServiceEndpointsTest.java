package io.tributary.api;

import org.junit.jupiter.api.Tag;

import static io.restassured.RestAssured.given;
import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/** Health, OpenAPI and Swagger UI need no credentials; unknown endpoints answer with the SPEC error body. */
@Tag("quarkus")
@QuarkusTest
class ServiceEndpointsTest {

    @Test
    void readinessIncludesTheDatabase() {
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body("checks.name", hasItem(containsString("Reactive PostgreSQL")));
    }

    @Test
    void openApiDescribesTheOperations() {
        given().queryParam("format", "json").get("/q/openapi").then().statusCode(200)
                .body("paths", org.hamcrest.Matchers.hasKey("/api/2.0/feature-engineering/streams"))
                .body("paths.'/api/2.0/feature-engineering/streams'.post.summary", containsString("Create a stream"))
                // The stream responses are pre-written JSON: the document must describe their fields, not the carrier.
                .body("paths.'/api/2.0/feature-engineering/streams/{name}'.get.responses.'200'.content."
                        + "'application/json'.schema.'$ref'", equalTo("#/components/schemas/StreamView"))
                .body("components.schemas.StreamStatus.properties", org.hamcrest.Matchers.hasKey("ingestion_status"))
                .body("paths", org.hamcrest.Matchers.hasKey("/api/2.0/database/synced_tables/{name}/lookup"))
                .body("components.schemas", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasKey("JsonBody")));
        given().get("/q/swagger-ui/").then().statusCode(200);
    }

    @Test
    void unknownEndpointsAndMethodsUseTheErrorBody() {
        as(ALICE).get("/api/2.0/nothing-here").then().statusCode(404)
                .body("error_code", equalTo("RESOURCE_DOES_NOT_EXIST"));
        as(ALICE).put("/api/2.0/connections").then().statusCode(405)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE"));
    }
}
