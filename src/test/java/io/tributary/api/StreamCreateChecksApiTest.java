package io.tributary.api;

import static io.tributary.api.StreamsFixture.createdName;
import static io.tributary.api.StreamsFixture.plainRowSchema;
import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.CAROL;
import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.json;
import static io.tributary.testing.StreamRequests.valid;
import static io.tributary.testing.StreamRequests.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import io.tributary.delta.Tables;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;


/**
 * What a stream create checks before it changes anything: the backfill source (exists, has a timestamp column, the
 * caller may SELECT it; registered external tables count), the destination (free), the schemas and columns, and that
 * Kafka is reachable. Each refusal names the field and leaves nothing behind.
 */
@Tag("quarkus")
@QuarkusTest
class StreamCreateChecksApiTest {
    static final String STREAMS = StreamsFixture.STREAMS;

    @Inject
    Tables tables;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @ConfigProperty(name = "tributary.warehouse")
    String warehouse;

    static String connection;
    static String topic;

    @BeforeEach
    void setUp() throws Exception {
        if (connection != null) {
            return;
        }
        StreamsFixture.Source source = StreamsFixture.create(bootstrap);
        connection = source.connection();
        topic = source.topic();
    }

    @Test
    void createNeedsUseConnectionAndSelectOnTheBackfillSource() {
        String backfill = "main." + unique("hist") + ".events";
        String[] parts = backfill.split("\\.");
        tables.create(tables.defaultLocation(parts[0], parts[1], parts[2]), plainRowSchema(), Map.of());
        String name = createdName("withbackfill");
        ObjectNode body = with(valid(name, connection, topic), "ingestion_config.backfill_source.delta_table_name",
                backfill);
        // Bob may use the connection but has no SELECT on the (unregistered) backfill source: only an admin has.
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"USE CONNECTION\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/connection/" + connection).then().statusCode(200);
        as(BOB).body(body.toString()).post(STREAMS).then().statusCode(403).body("message", containsString(backfill));
        as(ROOT).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"SELECT\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + backfill).then().statusCode(200);
        as(BOB).body(body.toString()).post(STREAMS).then().statusCode(200)
                .body("backfill_status.state", equalTo("WAITING_FOR_OVERLAP"))
                .body("created_by", equalTo("bob"));
        as(BOB).delete(STREAMS + "/" + name).then().statusCode(200);
        as(CAROL).body(with(body.deepCopy(), "name", createdName("carols")).toString()).post(STREAMS).then()
                .statusCode(403).body("message", containsString("USE CONNECTION"));
    }

    @Test
    void backfillSourceMustExistWithATimestampColumn() {
        String name = createdName("bf");
        String missing = "main." + unique("nohist") + ".events";
        rejects(with(valid(name, connection, topic), "ingestion_config.backfill_source.delta_table_name", missing),
                "ingestion_config.backfill_source.delta_table_name");
        String noTimestamp = "main." + unique("badhist") + ".events";
        String[] parts = noTimestamp.split("\\.");
        Schema onlyId = SchemaBuilder.record("r").fields().optionalString("id").endRecord();
        tables.create(tables.defaultLocation(parts[0], parts[1], parts[2]), onlyId, Map.of());
        as(ROOT).body(with(valid(name, connection, topic), "ingestion_config.backfill_source.delta_table_name",
                noTimestamp).toString()).post(STREAMS).then().statusCode(400)
                .body("message", startsWith("ingestion_config.backfill_source.delta_table_name:"))
                .body("message", containsString("stream_record_timestamp"));
        assertNothingLeft(name);
    }

    @Test
    void registeredExternalTablesServeAsBackfillSources() {
        String location = warehouse + "/external/" + unique("ext");
        tables.create(location, plainRowSchema(), Map.of());
        String registered = "ext." + unique("reg") + ".history";
        as(BOB).body("{\"name\": \"" + registered + "\", \"storage_location\": \"" + location + "\"}")
                .post("/api/2.1/unity-catalog/tables").then().statusCode(200)
                .body("owner", equalTo("bob")).body("storage_location", equalTo(location))
                .body("columns", hasSize(7));
        as(BOB).body("{\"name\": \"" + registered + "\", \"storage_location\": \"" + location + "\"}")
                .post("/api/2.1/unity-catalog/tables").then().statusCode(409);
        as(BOB).body("{\"name\": \"ext.x." + unique("y") + "\", \"storage_location\": \"" + warehouse + "/nothing\"}")
                .post("/api/2.1/unity-catalog/tables").then().statusCode(400)
                .body("message", startsWith("storage_location:"));
        as(BOB).body("{\"name\": \"ext.x.y\", \"storage_location\": \"relative/path\"}")
                .post("/api/2.1/unity-catalog/tables").then().statusCode(400)
                .body("message", startsWith("storage_location:"));
        String name = createdName("fromext");
        ObjectNode body = with(valid(name, connection, topic), "ingestion_config.backfill_source.delta_table_name",
                registered);
        as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(403);
        as(BOB).body("{\"changes\": [{\"principal\": \"alice\", \"add\": [\"SELECT\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + registered).then().statusCode(200);
        as(ALICE).body(body.toString()).post(STREAMS).then().statusCode(200);
        // A registered table's name is taken: it cannot become an ingestion destination.
        as(ALICE).body(with(valid(createdName("clash"), connection, topic),
                "ingestion_config.ingestion_destination.delta_table_name", registered).toString()).post(STREAMS)
                .then().statusCode(409).body("message",
                        startsWith("ingestion_config.ingestion_destination.delta_table_name:"));
        as(ALICE).delete(STREAMS + "/" + name).then().statusCode(200);
    }

    @Test
    void destinationTableAlreadyInTheWarehouseIsAConflict() {
        String name = createdName("taken");
        String schema = name.split("\\.")[1];
        String location = tables.defaultLocation("main", schema, "taken_ingestion");
        tables.create(location, plainRowSchema(), Map.of());
        as(ALICE).body(valid(name, connection, topic).toString()).post(STREAMS).then().statusCode(409)
                .body("error_code", equalTo("RESOURCE_ALREADY_EXISTS"))
                .body("message", startsWith("ingestion_config.ingestion_destination.delta_table_name:"));
        as(ALICE).get(STREAMS + "/" + name).then().statusCode(404);
        assertThat(tables.exists(location)).isTrue();
    }

    @Test
    void invalidSchemasAndColumnsNameTheField() {
        String name = createdName("badschema");
        rejects(with(valid(name, connection, topic), "schema_config.direct_schemas.payload_schema",
                json("{\"avro_schema\": \"{not avro\"}")), "schema_config.direct_schemas.payload_schema");
        rejects(with(valid(name, connection, topic), "schema_config.direct_schemas.key_schema",
                json("{\"json_schema\": \"[1, 2\"}")), "schema_config.direct_schemas.key_schema");
        rejects(with(valid(name, connection, topic), "schema_config.direct_schemas.payload_schema",
                json("{\"proto_schema\": {\"schema_text\": \"syntax = \\\"proto3\\\"; package p; "
                        + "message A { string s = 1; }\", \"message_name\": \"A\"}}")),
                "schema_config.direct_schemas.payload_schema");
        rejects(with(valid(name, connection, topic), "ingestion_config.deduplication_columns",
                List.of("kafka_offset", "value.nope")), "ingestion_config.deduplication_columns[1]");
        rejects(with(valid(name, connection, topic), "ingestion_config.deduplication_columns",
                List.of("value.id.deeper")), "ingestion_config.deduplication_columns[0]");
        assertNothingLeft(name);
    }

    @Test
    void unreachableKafkaIsA400OnConnectionConfigAndLeavesNothing() {
        String dead = unique("dead");
        as(ALICE).body("{\"name\": \"" + dead + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"127.0.0.1:1\", \"sasl_mechanism\": \"PLAIN\", \"user\": \"u\", "
                + "\"password\": \"dead-kafka-password\"}}").post("/api/2.0/connections").then().statusCode(200);
        String name = createdName("unreachable");
        as(ALICE).body(valid(name, dead, topic).toString()).post(STREAMS).then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", startsWith("connection_config:"))
                .body(not(containsString("dead-kafka-password")));
        assertNothingLeft(name);
    }

    private void assertNothingLeft(String name) {
        as(ROOT).get(STREAMS + "/" + name).then().statusCode(404);
        String[] parts = name.split("\\.");
        assertThat(tables.exists(tables.defaultLocation(parts[0], parts[1], parts[2] + "_ingestion"))).isFalse();
        as(ROOT).get("/api/2.1/unity-catalog/tables/" + name + "_ingestion").then().statusCode(404);
    }

    private static void rejects(ObjectNode body, String field) {
        as(ROOT).body(body.toString()).post(STREAMS).then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", startsWith(field));
    }
}
