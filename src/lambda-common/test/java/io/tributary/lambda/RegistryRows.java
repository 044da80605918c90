package io.tributary.lambda;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * A registered stream as stream-api leaves it (a Kafka connection, the ingestion table's row, the stream's row, and
 * the table whose first commit holds the start positions), written from outside the function: an integration test
 * talks to the packaged function only through the runtime API, so it puts the registry rows into PostgreSQL over
 * JDBC (the schema the function's Flyway migrated at start-up) and creates the table with the core's {@link Tables}.
 * The stream has a JSON payload schema and a plain key, as {@link #definition} spells them.
 */
public final class RegistryRows {
    private RegistryRows() {}

    /** A stream registered by {@link #stream}: its id, table location and the spec the functions derive from it. */
    public record Registered(String id, String name, String location, PipelineSpec spec) {}

    public static Connection jdbc() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(System.getProperty("quarkus.datasource.jdbc.url"),
                System.getProperty("quarkus.datasource.reactive.url")),
                System.getProperty("quarkus.datasource.username"), System.getProperty("quarkus.datasource.password"));
    }

    /** The test services give only the reactive URL, as a deployment does; the functions derive JDBC's the same way. */
    public static String jdbcUrl(String jdbc, String reactive) {
        return jdbc != null ? jdbc : io.tributary.config.JdbcUrls.fromReactive(reactive, null).orElseThrow(
                () -> new IllegalStateException("no registry database URL among the test services' settings"));
    }

    /** The warehouse the function under test was given (local or {@code s3://} with {@code tributary.s3-endpoint}). */
    public static Tables tables() {
        return Tables.forWarehouse(System.getProperty("tributary.warehouse"),
                Optional.ofNullable(System.getProperty("tributary.s3-endpoint")));
    }

    /**
     * The test services' broker with {@code topic} created on it: the ingest function asks the stream's brokers for
     * the batch's topic ids (a recreated topic is detected by its id), so its stream must name a broker that has it.
     */
    public static String brokerWith(String topic, int partitions) throws Exception {
        String bootstrap = System.getProperty("kafka.bootstrap.servers");
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                java.util.Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(java.util.List.of(new org.apache.kafka.clients.admin.NewTopic(topic, partitions,
                    (short) 1))).all().get();
        }
        return bootstrap;
    }

    /** A Kafka connection without credentials (functions that do not reach Kafka never use its brokers). */
    public static void connection(String name, String bootstrapServers) throws SQLException {
        try (Connection c = jdbc(); PreparedStatement s = c.prepareStatement("INSERT INTO connections "
                + "(name, connection_type, options, password, owner, created_at) VALUES (?, 'KAFKA', ?, NULL, 'root', ?)")) {
            s.setString(1, name);
            s.setString(2, "{\"options\":{\"bootstrap_servers\":\"" + bootstrapServers + "\"},\"comment\":null}");
            s.setTimestamp(3, Timestamp.from(Instant.now()));
            s.executeUpdate();
        }
    }

    /**
     * The create-stream request of {@code main.<schema>.<table>} subscribed to {@code topic}, with a JSON payload
     * schema; {@code ingestionExtra} is appended inside {@code ingestion_config} (e.g. a backfill source).
     */
    public static String definition(String schema, String table, String connection, String topic, String payloadSchema,
            String ingestionExtra) {
        String name = "main." + schema + "." + table;
        return "{\"name\":\"" + name + "\","
                + "\"source_config\":{\"kafka_stream_config\":{\"subscription_mode\":{\"subscribe\":\"" + topic
                + "\"}}},"
                + "\"connection_config\":{\"uc_connection_name\":\"" + connection + "\"},"
                + "\"schema_config\":{\"direct_schemas\":{\"payload_schema\":{\"json_schema\":"
                + quote(payloadSchema) + "}}},"
                + "\"ingestion_config\":{\"ingestion_destination\":{\"delta_table_name\":\"" + name
                + "_ingestion\"}" + (ingestionExtra == null ? "" : "," + ingestionExtra) + "}}";
    }

    /**
     * Registers the stream and creates its table {@code <warehouse>/main/<schema>/<table>_ingestion} with
     * {@code startPositions}.
     */
    public static Registered stream(Tables tables, String connection, String schema, String table, String topic,
            String payloadSchema, String ingestionExtra, String backfillState, Map<PartitionKey, Long> startPositions)
            throws SQLException {
        String id = UUID.randomUUID().toString();
        String name = "main." + schema + "." + table;
        String location = tables.defaultLocation("main", schema, table + "_ingestion");
        Instant createdAt = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        try (Connection c = jdbc()) {
            c.setAutoCommit(false);
            try (PreparedStatement t = c.prepareStatement("INSERT INTO registered_tables "
                    + "(full_name, storage_location, kind, owner, created_at) VALUES (?, ?, 'INGESTION', 'root', ?)");
                    PreparedStatement s = c.prepareStatement("INSERT INTO streams (id, full_name, catalog_name, "
                            + "schema_name, definition, table_name, connection_name, created_by, created_at, "
                            + "backfill_state) VALUES (?, ?, 'main', ?, ?, ?, ?, 'root', ?, ?)")) {
                t.setString(1, name + "_ingestion");
                t.setString(2, location);
                t.setTimestamp(3, Timestamp.from(createdAt));
                t.executeUpdate();
                s.setString(1, id);
                s.setString(2, name);
                s.setString(3, schema);
                s.setString(4, definition(schema, table, connection, topic, payloadSchema, ingestionExtra));
                s.setString(5, name + "_ingestion");
                s.setString(6, connection);
                s.setTimestamp(7, Timestamp.from(createdAt));
                s.setString(8, backfillState);
                s.executeUpdate();
            }
            c.commit();
        }
        PipelineSpec spec = new PipelineSpec(id, name, location, new Subscription.Topics(List.of(topic)), Map.of(),
                new SchemaSource.Plain(), new SchemaSource.JsonSchema(payloadSchema), createdAt);
        StreamSchema schemaOfRows = StreamSchema.of(SideSchema.compile(spec.keySchema(), "key"),
                SideSchema.compile(spec.valueSchema(), "value"));
        tables.create(location, schemaOfRows.rowSchema(), startPositions);
        return new Registered(id, name, location, spec);
    }

    /** The stream's row as a column name to value map. */
    public static Map<String, Object> streamRow(String id) throws SQLException {
        try (Connection c = jdbc(); PreparedStatement s = c.prepareStatement("SELECT * FROM streams WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    throw new AssertionError("no stream " + id);
                }
                Map<String, Object> row = new HashMap<>();
                for (int i = 1; i <= r.getMetaData().getColumnCount(); i++) {
                    row.put(r.getMetaData().getColumnName(i), r.getObject(i));
                }
                return row;
            }
        }
    }

    private static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
