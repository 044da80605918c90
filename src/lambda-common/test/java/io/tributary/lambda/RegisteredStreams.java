package io.tributary.lambda;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.request.ConnectionSpec;
import io.tributary.registry.service.ConnectionService;
import io.tributary.registry.store.StreamRow;
import io.tributary.registry.store.TableRow;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import io.tributary.security.Principal;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * Registers streams the way stream-api leaves them (registry rows, then a table whose first commit holds the start
 * positions) without a Kafka broker: function tests get the events' records from the events themselves.
 */
public final class RegisteredStreams {
    public static final Principal ROOT = new Principal("root", true);

    private RegisteredStreams() {}

    public static void connection(ConnectionService connections, String name) throws Throwable {
        VertxContextSupport.subscribeAndAwait(() -> connections.create(ROOT, new ConnectionSpec(name, "KAFKA",
                new ConnectionSpec.Options("127.0.0.1:9", null, null, null, null, null, null, null, null), null)));
    }

    /**
     * @param definition the create-stream request (SPEC 2.3) as stored; its name is {@code catalog.schema.table} and
     *     its destination {@code <name>_ingestion}
     */
    public static PipelineSpec register(StreamDirectory directory, Tables tables, String connection, String schema,
            String table, String definition, String backfillState, Instant createdAt,
            Map<PartitionKey, Long> startPositions) throws Throwable {
        String name = "main." + schema + "." + table;
        TableRow t = new TableRow();
        t.fullName = name + "_ingestion";
        t.storageLocation = tables.defaultLocation("main", schema, table + "_ingestion");
        t.kind = "INGESTION";
        t.owner = ROOT.name();
        t.createdAt = createdAt;
        StreamRow s = new StreamRow();
        s.id = UUID.randomUUID().toString();
        s.fullName = name;
        s.catalogName = "main";
        s.schemaName = schema;
        s.definition = definition;
        s.tableName = t.fullName;
        s.connectionName = connection;
        s.createdBy = ROOT.name();
        s.createdAt = createdAt;
        s.backfillState = backfillState;
        VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> t.persist().flatMap(x -> s.persist())));
        PipelineSpec spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(s.id)).orElseThrow();
        StreamSchema streamSchema = StreamSchema.of(SideSchema.compile(spec.keySchema(), "key"),
                SideSchema.compile(spec.valueSchema(), "value"), spec.rescueUndecodable());
        tables.create(spec.tableLocation(), streamSchema.rowSchema(), startPositions);
        return spec;
    }
}
