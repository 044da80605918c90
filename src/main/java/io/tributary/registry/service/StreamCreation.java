package io.tributary.registry.service;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.config.KafkaAdminConfig;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableExistsException;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineControl;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.StartPositions;
import io.tributary.registry.request.AllowedLocations;
import io.tributary.registry.store.Conflicts;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.IngestionTableSchema;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.request.StreamChecks;
import io.tributary.registry.request.StreamDefinition;
import io.tributary.registry.store.GrantRow;
import io.tributary.registry.store.GrantStore;
import io.tributary.registry.store.StreamRow;
import io.tributary.registry.store.TableRow;
import io.tributary.registry.view.JsonBody;
import io.tributary.registry.view.StreamViews;
import io.tributary.schema.InvalidSchemaException;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Schema;
import org.jboss.logging.Logger;

/**
 * Creating a stream (SPEC 2.3): the database checks in one session, then the blocking work (schemas, table checks,
 * start positions, the table itself) on a worker, then the rows in one transaction and the pipeline's start; each
 * step that fails undoes what the steps before it made.
 */
@ApplicationScoped
class StreamCreation {
    private static final Logger LOG = Logger.getLogger(StreamCreation.class);
    private static final String TIMESTAMP_COLUMN = StreamSchema.STREAM_RECORD_TIMESTAMP;

    @Inject
    Tables tables;
    @Inject
    AllowedLocations allowedLocations;
    @Inject
    TableService tableService;
    @Inject
    GrantStore grants;
    @Inject
    StreamSources sources;
    @Inject
    Instance<PipelineControl> pipelines;
    @Inject
    StreamStatuses statuses;
    @Inject
    KafkaAdminConfig kafka;

    /** What the database says before any blocking work: the request may proceed. */
    private record Prepared(StreamChecks.Checked checked, StreamSources.Resolved sources, String destinationLocation,
            String backfillLocation) {}

    private record Built(Prepared prepared, StreamRow row, TableRow table, PipelineSpec spec,
            Map<PartitionKey, Long> positions) {}

    Uni<JsonBody> create(Principal caller, StreamDefinition definition) {
        StreamChecks.Checked checked = StreamChecks.check(definition);
        return Panache.withSession(() -> prepare(caller, checked))
                .flatMap(prepared -> Blocking.call(() -> build(caller, prepared)))
                .flatMap(built -> Panache.withTransaction(() -> built.table().persist()
                                .flatMap(t -> built.row().persist()))
                        .onFailure().call(e -> Blocking.run(() -> tables.delete(built.table().storageLocation)))
                        .onFailure().transform(StreamCreation::conflictOnRace)
                        .replaceWith(built))
                .flatMap(built -> Blocking.call(() -> {
                    pipelines.stream().forEach(p -> p.start(built.spec()));
                    return built;
                }).onFailure().call(e -> {
                    LOG.errorf("starting the pipeline of stream %s failed (%s); removing the stream again",
                            built.row().fullName, e.getClass().getName());
                    return Panache.withTransaction(() -> StreamRow.deleteById(built.row().id)
                                    .flatMap(d -> TableRow.deleteById(built.table().fullName)))
                            .flatMap(d -> Blocking.run(() -> tables.delete(built.table().storageLocation)));
                }))
                .flatMap(built -> statuses.of(built.row(), built.table().storageLocation)
                        .map(status -> StreamViews.one(built.row(), status)));
    }

    private Uni<Prepared> prepare(Principal caller, StreamChecks.Checked checked) {
        String destination = checked.destinationName();
        return StreamRow.count("fullName", checked.fullName()).flatMap(n -> {
            if (n > 0) {
                throw ApiException.exists("name: stream '" + checked.fullName() + "' already exists; choose "
                        + "another name or delete it first");
            }
            return TableRow.<TableRow>findById(destination);
        }).flatMap(existing -> {
            if (existing != null) {
                throw ApiException.exists(StreamChecks.DESTINATION + ": table '" + destination + "' already "
                        + "exists" + (TableRow.INGESTION.equals(existing.kind) ? " as another stream's ingestion table"
                                : " as a registered table") + "; choose another table name");
            }
            return sources.resolve(checked, caller);
        }).flatMap(resolved -> {
            String destinationLocation = tables.defaultLocation(checked.destination().get(0),
                    checked.destination().get(1), checked.destination().get(2));
            if (checked.backfill() == null) {
                return Uni.createFrom().item(new Prepared(checked, resolved, destinationLocation, null));
            }
            return tableService.resolve(checked.backfill()).flatMap(backfill -> grants
                    .privileges(GrantRow.TABLE, backfill.fullName(), caller.name()).map(granted -> {
                        AccessPolicy.require(caller, backfill.owner(), granted, Privilege.SELECT, "table",
                                backfill.fullName());
                        return new Prepared(checked, resolved, destinationLocation, backfill.location());
                    }));
        });
    }

    /** The blocking part of a create: schemas, table checks, start positions, the table itself. */
    private Built build(Principal caller, Prepared p) {
        StreamChecks.Checked checked = p.checked();
        SideSchema key = compile(p.sources().key(), checked.key().field());
        SideSchema value = compile(p.sources().value(), checked.value().field());
        StreamSchema streamSchema = StreamSchema.of(key, value, checked.rescueUndecodable());
        Schema rowSchema = streamSchema.rowSchema();
        IngestionTableSchema.checkColumnPaths(streamSchema, checked.deduplicationColumns());
        // Names cannot climb out of the warehouse, but a link inside it can point anywhere.
        allowedLocations.check(StreamChecks.DESTINATION, p.destinationLocation());
        if (p.backfillLocation() != null) {
            allowedLocations.check(StreamChecks.BACKFILL, p.backfillLocation());
        }
        if (tables.exists(p.destinationLocation())) {
            throw ApiException.exists(StreamChecks.DESTINATION + ": a Delta table already exists at "
                    + p.destinationLocation() + "; choose another table name");
        }
        if (p.backfillLocation() != null) {
            checkBackfillSource(checked.backfillName(), p.backfillLocation());
        }
        StartPositions.Captured start;
        try {
            start = StartPositions.captureWithTopicIds(p.sources().kafkaProperties(), checked.subscription(),
                    kafka.adminTimeout());
        } catch (StartPositions.KafkaAccessException e) {
            // Name the connection: the brokers alone do not tell the user which registry object to fix.
            String via = checked.connectionName() == null ? "" : "connection '" + checked.connectionName() + "': ";
            throw ApiException.invalid("connection_config", via + e.getMessage());
        }
        Map<PartitionKey, Long> positions = start.positions();
        try {
            // With the topic ids: a topic recreated before the first commit is then told apart (SPEC 4).
            tables.create(p.destinationLocation(), rowSchema, positions, start.topicIds());
        } catch (TableExistsException e) {
            throw ApiException.exists(StreamChecks.DESTINATION + ": a Delta table already exists at "
                    + p.destinationLocation() + "; choose another table name");
        }
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        TableRow table = new TableRow();
        table.fullName = checked.destinationName();
        table.storageLocation = p.destinationLocation();
        table.kind = TableRow.INGESTION;
        table.owner = caller.name();
        table.createdAt = now;
        StreamRow row = new StreamRow();
        row.id = UUID.randomUUID().toString();
        row.fullName = checked.fullName();
        row.catalogName = checked.name().get(0);
        row.schemaName = checked.name().get(1);
        row.definition = RegistryJson.write(checked.definition());
        row.tableName = table.fullName;
        row.connectionName = checked.connectionName();
        row.createdBy = caller.name();
        row.createdAt = now;
        row.backfillState = checked.backfill() == null ? "NOT_CONFIGURED" : "WAITING_FOR_OVERLAP";
        PipelineSpec spec = new PipelineSpec(row.id, row.fullName, table.storageLocation, checked.subscription(),
                p.sources().kafkaProperties(), p.sources().key(), p.sources().value(), now, checked.rescueUndecodable());
        return new Built(p, row, table, spec, positions);
    }

    private void checkBackfillSource(String name, String location) {
        if (!tables.exists(location)) {
            throw ApiException.invalid(StreamChecks.BACKFILL, "no Delta table '" + name + "' at " + location
                    + "; register it with POST /api/2.1/unity-catalog/tables or create it there");
        }
        boolean hasTimestamp = tables.columns(location).stream()
                .anyMatch(c -> c.name().equals(TIMESTAMP_COLUMN) && c.type().equalsIgnoreCase("timestamp"));
        if (!hasTimestamp) {
            throw ApiException.invalid(StreamChecks.BACKFILL, "table '" + name + "' has no column "
                    + TIMESTAMP_COLUMN + " of type timestamp; the backfill needs it to find the overlap");
        }
    }

    private static SideSchema compile(io.tributary.schema.SchemaSource source, String field) {
        try {
            return SideSchema.compile(source, field);
        } catch (InvalidSchemaException e) {
            String path = e.field() == null ? field
                    : e.field().startsWith("schema_config") ? e.field() : "schema_config." + e.field();
            throw ApiException.invalid(path, e.getMessage());
        }
    }

    private static Throwable conflictOnRace(Throwable e) {
        if (e instanceof ApiException) {
            return e;
        }
        if (Conflicts.uniqueViolation(e)) {
            return ApiException.exists("name: the stream or its ingestion table was created concurrently "
                    + "by another request");
        }
        return e;
    }
}
