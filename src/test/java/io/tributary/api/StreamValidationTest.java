package io.tributary.api;

import org.junit.jupiter.api.Tag;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.json;
import static io.tributary.testing.StreamRequests.valid;
import static io.tributary.testing.StreamRequests.with;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every request-only rule of SPEC 2.3: each failure is a 400 whose message starts with the field path. */
@Tag("quarkus")
@QuarkusTest
class StreamValidationTest {
    static final String SUB = "source_config.kafka_stream_config.subscription_mode";
    static String connection;

    @BeforeEach
    void connection() {
        if (connection != null) {
            return;
        }
        connection = unique("vconn");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"127.0.0.1:1\"}}").post("/api/2.0/connections").then().statusCode(200);
    }

    private static ObjectNode base() {
        return valid("main.val." + unique("s"), connection, "tx");
    }

    private static void rejects(ObjectNode body, String field) {
        as(ALICE).body(body.toString()).post("/api/2.0/feature-engineering/streams").then().statusCode(400)
                .body("error_code", equalTo("INVALID_PARAMETER_VALUE"))
                .body("message", startsWith(field + ":"));
    }

    @Test
    void names() {
        rejects(with(base(), "name", null), "name");
        rejects(with(base(), "name", "main.only_two"), "name");
        rejects(with(base(), "name", "a.b.c.d"), "name");
        rejects(with(base(), "name", "main.sch.bad name"), "name");
        rejects(with(base(), "name", "main.sch.-dash"), "name");
        rejects(with(base(), "name", "main.sch." + "x".repeat(256)), "name");
        rejects(with(base(), "name", "main..x"), "name");
        rejects(with(base(), "ingestion_config.ingestion_destination.delta_table_name", "two.parts"),
                "ingestion_config.ingestion_destination.delta_table_name");
        rejects(with(base(), "ingestion_config.ingestion_destination", null),
                "ingestion_config.ingestion_destination");
        rejects(with(base(), "ingestion_config.backfill_source.delta_table_name", "x"),
                "ingestion_config.backfill_source.delta_table_name");
        rejects(with(base(), "ingestion_config", null), "ingestion_config");
    }

    @Test
    void subscriptionModeIsExactlyOne() {
        rejects(with(base(), SUB + ".subscribe_pattern", "tx.*"), SUB);
        rejects(with(base(), SUB + ".subscribe", null), SUB);
        rejects(with(base(), "source_config.kafka_stream_config.subscription_mode", null), SUB);
        rejects(with(base(), "source_config", null), "source_config");
        rejects(with(base(), "source_config.kafka_stream_config", null), "source_config.kafka_stream_config");
    }

    @Test
    void topicNamesFollowKafkaRules() {
        rejects(with(base(), SUB + ".subscribe", "ok,bad topic"), SUB + ".subscribe");
        rejects(with(base(), SUB + ".subscribe", "a,,b"), SUB + ".subscribe");
        rejects(with(base(), SUB + ".subscribe", "."), SUB + ".subscribe");
        rejects(with(base(), SUB + ".subscribe", ".."), SUB + ".subscribe");
        rejects(with(base(), SUB + ".subscribe", "t".repeat(250)), SUB + ".subscribe");
        rejects(with(base(), SUB + ".subscribe", "ümlaut"), SUB + ".subscribe");
    }

    @Test
    void patternMustCompile() {
        ObjectNode body = with(with(base(), SUB + ".subscribe", null), SUB + ".subscribe_pattern", "tx-(");
        rejects(body, SUB + ".subscribe_pattern");
    }

    @Test
    void assignMustBeTopicToPartitions() {
        for (String bad : List.of("not json", "[0,1]", "{}", "{\"tx\": []}", "{\"tx\": [-1]}", "{\"tx\": [\"0\"]}",
                "{\"bad topic\": [0]}", "{\"tx\": 0}")) {
            ObjectNode body = with(with(base(), SUB + ".subscribe", null), SUB + ".assign", bad);
            rejects(body, SUB + ".assign");
        }
    }

    @Test
    void connectionConfigIsExactlyOne() {
        rejects(with(base(), "connection_config", json("{}")), "connection_config");
        rejects(with(base(), "connection_config.direct_mtls_config", json("{\"bootstrap_servers\": \"h:1\"}")),
                "connection_config");
        rejects(with(base(), "connection_config", null), "connection_config");
        rejects(with(base(), "connection_config.uc_connection_name", "bad name"), "connection_config.uc_connection_name");
        rejects(with(base(), "connection_config.uc_connection_name", unique("absent")),
                "connection_config.uc_connection_name");
    }

    @Test
    void directMtlsConfigIsComplete() {
        String mtls = "connection_config.direct_mtls_config";
        ObjectNode body = with(base(), "connection_config", json("{\"direct_mtls_config\": {\"bootstrap_servers\": "
                + "\"nohostport\", \"mtls_config\": {}}}"));
        rejects(body, mtls + ".bootstrap_servers");
        body = with(base(), "connection_config", json("{\"direct_mtls_config\": {\"bootstrap_servers\": \"h:1\"}}"));
        rejects(body, mtls + ".mtls_config");
        body = with(base(), "connection_config", json("{\"direct_mtls_config\": {\"bootstrap_servers\": \"h:1\", "
                + "\"mtls_config\": {\"keystore_password_ref\": {\"scope\": \"s\", \"key\": \"k\"}}}}"));
        rejects(body, mtls + ".mtls_config.keystore_location");
        body = with(base(), "connection_config", json("{\"direct_mtls_config\": {\"bootstrap_servers\": \"h:1\", "
                + "\"mtls_config\": {\"keystore_location\": \"/k.jks\"}}}"));
        rejects(body, mtls + ".mtls_config.keystore_password_ref");
        body = with(base(), "connection_config", json("{\"direct_mtls_config\": {\"bootstrap_servers\": \"h:1\", "
                + "\"mtls_config\": {\"keystore_location\": \"/k.jks\", \"keystore_password_ref\": {\"scope\": \""
                + unique("nosuchscope") + "\", \"key\": \"k\"}}}}"));
        rejects(body, mtls + ".mtls_config.keystore_password_ref.scope");
    }

    @Test
    void referencedSecretsMustExistAndBeReadable() {
        String scope = unique("mtlsscope");
        as(BOB).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create").then().statusCode(200);
        as(BOB).body("{\"scope\": \"" + scope + "\", \"key\": \"ks\", \"string_value\": \"keystore-pass-777\"}")
                .post("/api/2.0/secrets/put").then().statusCode(200);
        String mtls = "{\"direct_mtls_config\": {\"bootstrap_servers\": \"h:1\", \"mtls_config\": {"
                + "\"keystore_location\": \"/k.jks\", \"keystore_password_ref\": {\"scope\": \"" + scope
                + "\", \"key\": \"%s\"}}}}";
        as(ALICE).body(with(base(), "connection_config", json(String.format(mtls, "ks"))).toString())
                .post("/api/2.0/feature-engineering/streams").then().statusCode(403)
                .body("error_code", equalTo("PERMISSION_DENIED")).body("message", containsString(scope))
                .body(org.hamcrest.Matchers.not(containsString("keystore-pass-777")));
        as(BOB).body("{\"scope\": \"" + scope + "\", \"principal\": \"alice\", \"permission\": \"READ\"}")
                .post("/api/2.0/secrets/acls/put").then().statusCode(200);
        rejects(with(base(), "connection_config", json(String.format(mtls, "absent"))),
                "connection_config.direct_mtls_config.mtls_config.keystore_password_ref.key");
    }

    @Test
    void schemaConfigShapes() {
        rejects(with(base(), "schema_config", null), "schema_config");
        rejects(with(base(), "schema_config", json("{}")), "schema_config");
        rejects(with(base(), "schema_config.schema_registry_config", json("{\"payload_schema_locator\": "
                + "{\"confluent_schema\": {\"subject\": \"s\"}, \"format\": \"FORMAT_AVRO\"}}")), "schema_config");
        rejects(with(base(), "schema_config.direct_schemas", json("{}")), "schema_config.direct_schemas");
        rejects(with(base(), "schema_config.direct_schemas.payload_schema", json("{}")),
                "schema_config.direct_schemas.payload_schema");
        rejects(with(base(), "schema_config.direct_schemas.payload_schema",
                json("{\"json_schema\": \"{}\", \"avro_schema\": \"{}\"}")),
                "schema_config.direct_schemas.payload_schema");
        rejects(with(base(), "schema_config.direct_schemas.key_schema",
                json("{\"proto_schema\": {\"schema_text\": \"syntax = \\\"proto3\\\";\"}}")),
                "schema_config.direct_schemas.key_schema.proto_schema.message_name");
        rejects(with(base(), "schema_config.direct_schemas.key_schema",
                json("{\"proto_schema\": {\"message_name\": \"a.B\"}}")),
                "schema_config.direct_schemas.key_schema.proto_schema.schema_text");
    }

    @Test
    void registryConfigShapes() {
        String reg = "schema_config.schema_registry_config";
        ObjectNode noDirect = with(base(), "schema_config.direct_schemas", null);
        rejects(with(noDirect.deepCopy(), reg, json("{}")), reg);
        rejects(with(noDirect.deepCopy(), reg, json("{\"payload_schema_locator\": {\"format\": \"FORMAT_AVRO\"}}")),
                reg + ".payload_schema_locator.confluent_schema");
        rejects(with(noDirect.deepCopy(), reg, json("{\"payload_schema_locator\": {\"confluent_schema\": {}, "
                + "\"format\": \"FORMAT_AVRO\"}}")), reg + ".payload_schema_locator.confluent_schema.subject");
        rejects(with(noDirect.deepCopy(), reg, json("{\"key_schema_locator\": {\"confluent_schema\": "
                + "{\"subject\": \"k\"}}}")), reg + ".key_schema_locator.format");
        rejects(with(noDirect.deepCopy(), reg, json("{\"key_schema_locator\": {\"confluent_schema\": "
                + "{\"subject\": \"k\"}, \"format\": \"FORMAT_XML\"}}")), reg + ".key_schema_locator.format");
        as(ALICE).body(with(noDirect.deepCopy(), reg, json("{\"key_schema_locator\": {\"confluent_schema\": "
                + "{\"subject\": \"k\"}, \"format\": \"FORMAT_JSON\"}}")).toString())
                .post("/api/2.0/feature-engineering/streams").then().statusCode(400)
                .body("message", containsString("inline"));
        // The connection has no schema_registry_url.
        rejects(with(noDirect.deepCopy(), reg, json("{\"payload_schema_locator\": {\"confluent_schema\": "
                + "{\"subject\": \"v\"}, \"format\": \"FORMAT_AVRO\"}}")), reg);
        // A direct mTLS config has no registry URL at all.
        ObjectNode direct = with(noDirect.deepCopy(), reg, json("{\"payload_schema_locator\": {\"confluent_schema\": "
                + "{\"subject\": \"v\"}, \"format\": \"FORMAT_AVRO\"}}"));
        with(direct, "connection_config", json("{\"direct_mtls_config\": {\"bootstrap_servers\": \"h:1\", "
                + "\"mtls_config\": {\"keystore_location\": \"/k\", \"keystore_password_ref\": {\"scope\": \"s\", "
                + "\"key\": \"k\"}}}}"));
        rejects(direct, reg);
    }

    @Test
    void deduplicationColumnsAreStrings() {
        rejects(with(base(), "ingestion_config.deduplication_columns", List.of("value.id", "")),
                "ingestion_config.deduplication_columns[1]");
        rejects(with(base(), "ingestion_config.deduplication_columns", "value.id"),
                "ingestion_config.deduplication_columns");
        ObjectNode body = base();
        rejects(with(body, "ingestion_config.backfill_source.delta_table_name",
                        body.at("/ingestion_config/ingestion_destination/delta_table_name").asText()),
                "ingestion_config.backfill_source.delta_table_name");
    }

    @Test
    void unknownAndMistypedFieldsAreNamed() {
        rejects(with(base(), "source_config.kafka_stream_config.starting_offsets", "earliest"),
                "source_config.kafka_stream_config.starting_offsets");
        rejects(with(base(), "ingestion_config.ingestion_destination.table", "x"),
                "ingestion_config.ingestion_destination.table");
        rejects(with(base(), "name", Map.of("a", 1)), "name");
        rejects(with(base(), "name", 42), "name");
    }

    @Test
    void nonJsonIsMalformed() {
        as(ALICE).body("name=main.s.x").post("/api/2.0/feature-engineering/streams").then().statusCode(400)
                .body("error_code", equalTo("MALFORMED_REQUEST"));
        as(ALICE).body("[]").post("/api/2.0/feature-engineering/streams").then().statusCode(400)
                .body("error_code", equalTo("MALFORMED_REQUEST"));
        as(ALICE).body("{} {}").post("/api/2.0/feature-engineering/streams").then().statusCode(400)
                .body("error_code", equalTo("MALFORMED_REQUEST"));
    }

    @Test
    void useConnectionIsRequired() {
        as(BOB).body(base().toString()).post("/api/2.0/feature-engineering/streams").then().statusCode(403)
                .body("error_code", equalTo("PERMISSION_DENIED")).body("message", containsString("USE CONNECTION"));
    }
}
