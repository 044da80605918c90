package io.tributary.registry.request;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.tributary.ingest.Subscription;
import io.tributary.registry.request.StreamDefinition.SchemaLocator;
import io.tributary.registry.request.StreamDefinition.SchemaText;
import io.tributary.schema.RegistryFormat;
import io.tributary.schema.SchemaSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The checks of a create-stream request that need nothing but the request (SPEC 2.3 "exactly one of" rules, names,
 * topics, patterns, assignments, schema shapes). Each failure names the field path and the fix.
 */
public final class StreamChecks {
    public static final String SUBSCRIPTION = "source_config.kafka_stream_config.subscription_mode";
    public static final String DESTINATION = "ingestion_config.ingestion_destination.delta_table_name";
    public static final String BACKFILL = "ingestion_config.backfill_source.delta_table_name";
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]+");
    private static final int MAX_TOPIC_LENGTH = 249;

    private StreamChecks() {}

    /** One side (key or value) of the stream: a direct schema, or a registry subject to look up. */
    public record Side(String field, SchemaSource direct, String subject, RegistryFormat format) {}

    public record Checked(
            StreamDefinition definition,
            List<String> name,
            List<String> destination,
            List<String> backfill,
            Subscription subscription,
            String connectionName,
            StreamDefinition.DirectMtlsConfig mtls,
            Side key,
            Side value,
            SecretRef registrySecret,
            List<String> deduplicationColumns,
            boolean rescueUndecodable) {

        public String fullName() {
            return String.join(".", name);
        }

        public String destinationName() {
            return String.join(".", destination);
        }

        public String backfillName() {
            return backfill == null ? null : String.join(".", backfill);
        }
    }

    /**
     * Whether a stored definition (as {@code RegistryJson.write} wrote a checked one) has
     * {@code ingestion_config.rescue_undecodable} true, without parsing it: GET asks on every call, and a definition
     * can hold large schema texts. Inside a string value the quotes would be escaped, so the text cannot match there.
     */
    public static boolean rescues(String storedDefinition) {
        return storedDefinition != null && storedDefinition.contains("\"rescue_undecodable\":true");
    }

    public static Checked check(StreamDefinition d) {
        List<String> name = Names.threePart("name", d.name());
        Subscription subscription = subscription(d.sourceConfig());

        boolean direct = subscription instanceof Subscription.Direct;
        var cc = direct && d.connectionConfig() == null ? new StreamDefinition.ConnectionConfig(null, null)
                : required(d.connectionConfig(), "connection_config");
        if (direct && cc.directMtlsConfig() != null) {
            throw ApiException.invalid("connection_config.direct_mtls_config", "a stream with direct_source_config "
                    + "reads no Kafka; leave connection_config out, or name a connection with uc_connection_name for "
                    + "its schema registry");
        }
        if (!direct) {
            exactlyOne("connection_config", "uc_connection_name or direct_mtls_config", cc.ucConnectionName(),
                    cc.directMtlsConfig());
        }
        String connectionName = null;
        StreamDefinition.DirectMtlsConfig mtls = null;
        if (cc.ucConnectionName() != null) {
            connectionName = Names.onePart("connection_config.uc_connection_name", cc.ucConnectionName());
        } else if (!direct) {
            mtls = cc.directMtlsConfig();
            ConnectionChecks.checkBootstrapServers("connection_config.direct_mtls_config.bootstrap_servers",
                    mtls.bootstrapServers());
            var m = required(mtls.mtlsConfig(), "connection_config.direct_mtls_config.mtls_config");
            String base = "connection_config.direct_mtls_config.mtls_config.";
            requiredText(m.keystoreLocation(), base + "keystore_location");
            required(m.keystorePasswordRef(), base + "keystore_password_ref");
            if (m.truststorePasswordRef() != null && m.truststoreLocation() == null) {
                throw ApiException.invalid(base + "truststore_location", "is required with truststore_password_ref");
            }
        }

        var sc = required(d.schemaConfig(), "schema_config");
        exactlyOne("schema_config", "direct_schemas or schema_registry_config", sc.directSchemas(),
                sc.schemaRegistryConfig());
        Side key;
        Side value;
        SecretRef registrySecret = null;
        if (sc.directSchemas() != null) {
            var ds = sc.directSchemas();
            if (ds.payloadSchema() == null && ds.keySchema() == null) {
                throw ApiException.invalid("schema_config.direct_schemas", "set at least one of payload_schema "
                        + "(the Kafka value) and key_schema (the Kafka key)");
            }
            key = direct(ds.keySchema(), "schema_config.direct_schemas.key_schema");
            value = direct(ds.payloadSchema(), "schema_config.direct_schemas.payload_schema");
        } else {
            var rc = sc.schemaRegistryConfig();
            if (rc.payloadSchemaLocator() == null && rc.keySchemaLocator() == null) {
                throw ApiException.invalid("schema_config.schema_registry_config", "set at least one of "
                        + "payload_schema_locator and key_schema_locator");
            }
            if (connectionName == null) {
                throw ApiException.invalid("schema_config.schema_registry_config", "needs a connection: set "
                        + "connection_config.uc_connection_name to a connection whose options set schema_registry_url");
            }
            key = locator(rc.keySchemaLocator(), "schema_config.schema_registry_config.key_schema_locator");
            value = locator(rc.payloadSchemaLocator(), "schema_config.schema_registry_config.payload_schema_locator");
            registrySecret = rc.apiSecretRef();
        }

        var ic = required(d.ingestionConfig(), "ingestion_config");
        var dest = required(ic.ingestionDestination(), "ingestion_config.ingestion_destination");
        List<String> destination = Names.threePart(DESTINATION, dest.deltaTableName());
        List<String> backfill = null;
        if (ic.backfillSource() != null) {
            backfill = Names.threePart(BACKFILL, ic.backfillSource().deltaTableName());
            if (backfill.equals(destination)) {
                throw ApiException.invalid(BACKFILL, "must differ from the ingestion destination");
            }
        }
        List<String> dedup = ic.deduplicationColumns() == null ? List.of() : ic.deduplicationColumns();
        for (int i = 0; i < dedup.size(); i++) {
            if (dedup.get(i) == null || dedup.get(i).isBlank()) {
                throw ApiException.invalid("ingestion_config.deduplication_columns[" + i + "]",
                        "must be a column path such as value.transaction_id");
            }
        }

        StreamDefinition normalized = new StreamDefinition(String.join(".", name), d.sourceConfig(),
                direct && connectionName == null ? null : new StreamDefinition.ConnectionConfig(connectionName, mtls), sc,
                new StreamDefinition.IngestionConfig(new StreamDefinition.TableRef(String.join(".", destination)),
                        backfill == null ? null : new StreamDefinition.TableRef(String.join(".", backfill)),
                        ic.deduplicationColumns(), ic.rescueUndecodable()));
        return new Checked(normalized, name, destination, backfill, subscription, connectionName, mtls, key, value,
                registrySecret, dedup, Boolean.TRUE.equals(ic.rescueUndecodable()));
    }

    public static Subscription subscription(StreamDefinition.SourceConfig sourceConfig) {
        var source = required(sourceConfig, "source_config");
        if (source.kafkaStreamConfig() == null && source.directSourceConfig() == null) {
            throw ApiException.invalid("source_config.kafka_stream_config", "is required; or set "
                    + "source_config.direct_source_config to {} for a stream whose producers push its records");
        }
        exactlyOne("source_config", "kafka_stream_config or direct_source_config", source.kafkaStreamConfig(),
                source.directSourceConfig());
        if (source.directSourceConfig() != null) {
            return new Subscription.Direct();
        }
        var kafka = required(source.kafkaStreamConfig(), "source_config.kafka_stream_config");
        var mode = required(kafka.subscriptionMode(), SUBSCRIPTION);
        exactlyOne(SUBSCRIPTION, "subscribe, subscribe_pattern or assign", mode.subscribe(), mode.subscribePattern(),
                mode.assign());
        if (mode.subscribe() != null) {
            LinkedHashSet<String> topics = new LinkedHashSet<>();
            for (String t : mode.subscribe().split(",", -1)) {
                topics.add(topic(SUBSCRIPTION + ".subscribe", t.trim()));
            }
            return new Subscription.Topics(List.copyOf(topics));
        }
        if (mode.subscribePattern() != null) {
            String field = SUBSCRIPTION + ".subscribe_pattern";
            if (mode.subscribePattern().isEmpty()) {
                throw ApiException.invalid(field, "must not be empty; give a Java regular expression over "
                        + "topic names");
            }
            try {
                Pattern.compile(mode.subscribePattern());
            } catch (PatternSyntaxException e) {
                throw ApiException.invalid(field, "is not a valid Java regular expression (" + e.getDescription()
                        + " near index " + e.getIndex() + "); fix the pattern, e.g. tx-.*");
            }
            return new Subscription.Pattern(mode.subscribePattern());
        }
        return new Subscription.Assign(assign(mode.assign()));
    }

    private static Map<String, List<Integer>> assign(String text) {
        String field = SUBSCRIPTION + ".assign";
        String shape = "use a JSON object of topic to partition numbers, e.g. {\"tx\": [0, 1, 2]}";
        JsonNode root;
        try {
            root = RegistryJson.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw ApiException.invalid(field, "is not valid JSON; " + shape);
        }
        if (root == null || !root.isObject() || root.isEmpty()) {
            throw ApiException.invalid(field, "must be a non-empty JSON object; " + shape);
        }
        Map<String, List<Integer>> result = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String topic = topic(field, e.getKey());
            JsonNode partitions = e.getValue();
            if (!partitions.isArray() || partitions.isEmpty()) {
                throw ApiException.invalid(field, "topic '" + topic + "' must map to a non-empty array of "
                        + "partition numbers; " + shape);
            }
            List<Integer> list = new ArrayList<>();
            for (JsonNode p : partitions) {
                if (!p.isInt() || p.intValue() < 0) {
                    throw ApiException.invalid(field, "topic '" + topic + "' has a partition that is not a "
                            + "non-negative integer; " + shape);
                }
                if (!list.contains(p.intValue())) {
                    list.add(p.intValue());
                }
            }
            result.put(topic, List.copyOf(list));
        }
        return result;
    }

    /** Kafka's topic name rules (org.apache.kafka.common.internals.Topic). */
    public static String topic(String field, String topic) {
        if (topic.isEmpty()) {
            throw ApiException.invalid(field, "contains an empty topic name; list topics separated by commas, "
                    + "e.g. tx-eu,tx-us");
        }
        if (topic.equals(".") || topic.equals("..")) {
            throw ApiException.invalid(field, "'" + topic + "' is not a legal topic name");
        }
        if (topic.length() > MAX_TOPIC_LENGTH) {
            throw ApiException.invalid(field, "a topic name is " + topic.length() + " characters long; Kafka "
                    + "allows at most " + MAX_TOPIC_LENGTH);
        }
        if (!TOPIC.matcher(topic).matches()) {
            throw ApiException.invalid(field, "'" + Names.shorten(topic) + "' is not a legal topic name: use "
                    + "letters, digits, '.', '_' and '-'");
        }
        return topic;
    }

    private static Side direct(SchemaText side, String field) {
        if (side == null) {
            return new Side(field, new SchemaSource.Plain(), null, null);
        }
        exactlyOne(field, "json_schema, avro_schema or proto_schema", side.jsonSchema(), side.avroSchema(),
                side.protoSchema());
        if (side.jsonSchema() != null) {
            return new Side(field, new SchemaSource.JsonSchema(side.jsonSchema()), null, null);
        }
        if (side.avroSchema() != null) {
            return new Side(field, new SchemaSource.Avro(side.avroSchema()), null, null);
        }
        var proto = side.protoSchema();
        requiredText(proto.schemaText(), field + ".proto_schema.schema_text");
        requiredText(proto.messageName(), field + ".proto_schema.message_name");
        return new Side(field, new SchemaSource.Protobuf(proto.schemaText(), proto.messageName()), null, null);
    }

    private static Side locator(SchemaLocator locator, String field) {
        if (locator == null) {
            return new Side(field, new SchemaSource.Plain(), null, null);
        }
        var confluent = required(locator.confluentSchema(), field + ".confluent_schema");
        requiredText(confluent.subject(), field + ".confluent_schema.subject");
        requiredText(locator.format(), field + ".format");
        RegistryFormat format;
        switch (locator.format()) {
            case "FORMAT_AVRO" -> format = RegistryFormat.FORMAT_AVRO;
            case "FORMAT_PROTOBUF" -> format = RegistryFormat.FORMAT_PROTOBUF;
            case "FORMAT_JSON", "FORMAT_JSON_SCHEMA" -> throw ApiException.invalid(field + ".format",
                    "JSON schemas are not read from a registry; declare the JSON schema inline with "
                            + "schema_config.direct_schemas");
            default -> throw ApiException.invalid(field + ".format", "'" + Names.shorten(locator.format())
                    + "' is not supported; use FORMAT_AVRO or FORMAT_PROTOBUF");
        }
        return new Side(field, null, confluent.subject(), format);
    }

    private static void exactlyOne(String field, String choices, Object... values) {
        int set = 0;
        for (Object v : values) {
            if (v != null) {
                set++;
            }
        }
        if (set != 1) {
            throw ApiException.invalid(field, (set == 0 ? "none" : "more than one") + " of " + choices
                    + " is set; set exactly one");
        }
    }

    public static <T> T required(T value, String field) {
        if (value == null) {
            throw ApiException.missing(field);
        }
        return value;
    }

    private static void requiredText(String value, String field) {
        if (value == null || value.isBlank()) {
            throw ApiException.missing(field);
        }
    }
}
