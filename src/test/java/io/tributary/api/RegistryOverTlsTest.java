package io.tributary.api;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.tributary.testing.RegistryOverTls;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A registry database that takes TLS connections only (RDS Proxy with {@code require_tls}, as Terraform deploys it),
 * configured as a deployment is: {@code QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_SSL_MODE=require} beside a URL
 * without parameters. Every connection the process opens must use it: the registry probe's own connection (else every
 * API call is a 503 "the registry database is not answering") and the lookups' pools (else every lookup fails).
 */
@Tag("quarkus")
@QuarkusTest
@TestProfile(RegistryOverTls.class)
class RegistryOverTlsTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final String SYNCED = "/api/2.0/database/synced_tables";

    @Test
    void theApiAndLookupsWorkAgainstADatabaseThatRequiresTls() {
        String stream = "main." + unique("tls") + ".orders";
        as(ALICE).body("{\"name\": \"" + stream + "\", \"source_config\": {\"direct_source_config\": {}}, "
                + "\"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + "\"{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"id\\\":{\\\"type\\\":\\\"string\\\"},"
                + "\\\"amount\\\":{\\\"type\\\":\\\"number\\\"}}}\"}}}, \"ingestion_config\": "
                + "{\"ingestion_destination\": {\"delta_table_name\": \"" + stream + "_ingestion\"}}}")
                .post(STREAMS).then().statusCode(200);
        as(ALICE).get(STREAMS + "/" + stream).then().statusCode(200);

        String synced = stream + "_online";
        as(ALICE).body("{\"name\": \"" + synced + "\", \"spec\": {\"source_table_full_name\": \"" + stream
                + "_ingestion\", \"primary_key_columns\": [\"value.id\"], \"timeseries_key\": "
                + "\"stream_record_timestamp\", \"scheduling_policy\": \"CONTINUOUS\"}}").post(SYNCED).then()
                .statusCode(200);
        as(ALICE).body("{\"producer_id\": \"p\", \"sequence\": 0, \"records\": [{\"key\": \"u1\", \"value\": "
                + "{\"id\": \"u1\", \"amount\": 7}}]}").post(STREAMS + "/" + stream + "/records").then()
                .statusCode(200);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            // A sync now, through the lookups' database connections too: in stream-api a push is synced by the
            // backfill function's tick, which this test does not run (the server syncs right after the commit).
            as(ALICE).post(SYNCED + "/" + synced + "/sync").then().statusCode(200);
            JsonPath s = as(ALICE).get(SYNCED + "/" + synced).then().statusCode(200).extract().jsonPath();
            assertThat(s.getString("data_synchronization_status.state")).isEqualTo("ONLINE");
            assertThat(s.getLong("data_synchronization_status.rows")).isEqualTo(1);
        });

        List<Map<String, Object>> rows = as(ALICE).body("{\"keys\": [{\"value_id\": \"u1\"}]}")
                .post(SYNCED + "/" + synced + "/lookup").then().statusCode(200).extract().jsonPath().getList("rows");
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0)).containsEntry("value_id", "u1");
    }
}
