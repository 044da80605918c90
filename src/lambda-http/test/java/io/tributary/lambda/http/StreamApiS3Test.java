package io.tributary.lambda.http;

import io.tributary.lambda.S3Warehouse;
import io.tributary.lambda.mappings.FakeAwsControlPlane;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.tributary.testing.Api;
import io.tributary.testing.ApiGatewayHttpApi;
import io.tributary.testing.StreamRequests;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * stream-api with its warehouse on S3 (S3Proxy), as deployed: creating a stream through API Gateway events writes its
 * Delta table as S3 objects, and deleting it removes every one of them.
 */
@Tag("quarkus")
@QuarkusTest
@TestProfile(S3Warehouse.class)
@QuarkusTestResource(FakeAwsControlPlane.class)
class StreamApiS3Test {
    private static final String STREAMS = "/api/2.0/feature-engineering/streams";

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void aStreamsTableIsCreatedOnS3AndDeletedWithTheStream() {
        long events = ApiGatewayHttpApi.eventsPosted();
        String connection = Api.unique("s3-kafka");
        Api.as(Api.ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then()
                .statusCode(200);
        String schema = Api.unique("s3api");
        String name = "main." + schema + ".tx";
        Api.as(Api.ALICE).body(StreamRequests.valid(name, connection, Api.unique("tx")).toString()).post(STREAMS)
                .then().statusCode(200).body("ingestion_status.table_version", equalTo(0));

        Api.as(Api.ALICE).get("/api/2.1/unity-catalog/tables/" + name + "_ingestion").then().statusCode(200)
                .body("storage_location", startsWith("s3://" + S3Warehouse.BUCKET + "/" + S3Warehouse.PREFIX + "/"));
        String prefix = S3Warehouse.PREFIX + "/main/" + schema + "/tx_ingestion/";
        assertThat(S3Warehouse.Server.s3.keys(S3Warehouse.BUCKET, prefix))
                .contains(prefix + "_delta_log/00000000000000000000.json");
        Api.as(Api.ALICE).get(STREAMS + "/" + name).then().statusCode(200).body("name", equalTo(name));

        Api.as(Api.ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
        assertThat(S3Warehouse.Server.s3.keys(S3Warehouse.BUCKET, prefix)).isEmpty();
        Api.as(Api.ALICE).get(STREAMS + "/" + name).then().statusCode(404);
        assertThat(ApiGatewayHttpApi.eventsPosted()).as("every call went through API Gateway events")
                .isGreaterThanOrEqualTo(events + 6);
    }
}
