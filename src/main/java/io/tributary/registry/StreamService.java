package io.tributary.registry;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableExistsException;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.IngestionStatusSource;
import io.tributary.ingest.PipelineControl;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.StartPositions;
import io.tributary.schema.InvalidSchemaException;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.avro.Schema;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/** Create, get, list and delete streams (SPEC 2.3), with the checks of SPEC 3 and 4.2. */
@ApplicationScoped
public class StreamService {
    private static final Logger LOG = Logger.getLogger(StreamService.class);
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
    Instance<IngestionStatusSource> statusSources;
    @Inject
    StreamReads reads;
    @Inject
    StreamWriteLocks writeLocks;
    private volatile List<IngestionStatusSource> statusSourceList;
    @ConfigProperty(name = "tributary.kafka.admin-timeout", defaultValue = "10s")
    Duration kafkaTimeout;

    /** What the database says before any blocking work: the request may proceed. */
    private record Prepared(StreamChecks.Checked checked, StreamSources.Resolved sources, String destinationLocation,
            String backfillLocation) {}

    private record Built(Prepared prepared, StreamRow row, TableRow table, PipelineSpec spec,
            Map<PartitionKey, Long> positions) {}

    public Uni<JsonBody> create(Principal caller, StreamDefinition definition) {
        StreamChecks.Checked checked = StreamChecks.check(definition);
        return Panache.withSession(() -> prepare(caller, checked))
                .flatMap(prepared -> Blocking.call(() -> build(caller, prepared)))
                .flatMap(built -> Panache.withTransaction(() -> built.table().persist()
                                .flatMap(t -> built.row().persist()))
                        .onFailure().call(e -> Blocking.run(() -> tables.delete(built.table().storageLocation)))
                        .onFailure().transform(StreamService::conflictOnRace)
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
                .flatMap(built -> status(built.row(), built.table().storageLocation)
                        .map(status -> StreamViews.one(built.row(), status)));
    }

    public Uni<JsonBody> get(Principal caller, String nameParam) {
        String fullName = Names.fullName("name", nameParam);
        return reads.one(fullName, caller.name()).flatMap(found -> {
            if (found == null) {
                throw RegistryException.notFound("stream '" + fullName + "' does not exist");
            }
            AccessPolicy.require(caller, found.tableOwner(), found.privileges(), Privilege.SELECT, "table",
                    found.stream().tableName);
            return status(found.stream(), found.tableLocation()).map(status -> StreamViews.one(found.stream(), status));
        });
    }

    /**
     * Keyset paging on the full name: the page token is the last name returned, so pages stay stable while streams
     * come and go. The readability filter runs in SQL so a page is always full when more readable streams exist.
     */
    public Uni<JsonBody> list(Principal caller, String catalogParam, String schemaParam, Integer maxResultsParam,
            String pageToken, boolean includeSchemas) {
        if (catalogParam == null || catalogParam.isEmpty()) {
            throw RegistryException.missing("catalog_name");
        }
        String catalog = Names.onePart("catalog_name", catalogParam);
        String schema = schemaParam == null || schemaParam.isEmpty() ? null : Names.onePart("schema_name", schemaParam);
        int maxResults = maxResultsParam == null ? 50 : maxResultsParam;
        if (maxResults < 1 || maxResults > 1000) {
            throw RegistryException.invalid("max_results", maxResults + " is out of range; use 1 to 1000");
        }
        String after = pageToken == null || pageToken.isEmpty() ? null : decodeToken(pageToken);
        return reads.page(caller, catalog, schema, after, maxResults + 1).map(rows -> {
            List<StreamRow> page = rows.size() > maxResults ? rows.subList(0, maxResults) : rows;
            List<IngestionStatus> statuses = new ArrayList<>(page.size());
            for (StreamRow row : page) {
                statuses.add(liveStatus(row.id).orElse(null));
            }
            String next = rows.size() > maxResults ? encodeToken(page.get(page.size() - 1).fullName) : null;
            return StreamViews.page(page, statuses, includeSchemas, next);
        });
    }

    public Uni<Void> delete(Principal caller, String nameParam) {
        String fullName = Names.fullName("name", nameParam);
        return Panache.withSession(() -> readable(caller, fullName, Privilege.MANAGE))
                .flatMap(found -> Blocking.call(() -> {
                    pipelines.stream().forEach(p -> p.stop(found.stream().id));
                    // The backfill merge and compaction may be committing from another process: wait for them, and
                    // keep later ones out until the rows below are gone, so they find the stream gone.
                    StreamWriteLocks.Exclusive lock = writeLocks.exclusive(found.table().storageLocation);
                    try {
                        tables.delete(found.table().storageLocation);
                    } catch (RuntimeException e) {
                        lock.close();
                        throw e;
                    }
                    return lock;
                }).flatMap(lock -> Panache.withTransaction(() -> StreamRow.deleteById(found.stream().id)
                                .flatMap(d -> TableRow.deleteById(found.table().fullName))
                                .flatMap(d -> grants.removeAll(GrantRow.TABLE, found.table().fullName)))
                        .eventually(() -> Blocking.run(lock::close))
                        .invoke(() -> StreamViews.forget(found.stream().id))
                        .replaceWithVoid()));
    }

    private record Found(StreamRow stream, TableRow table) {}

    private Uni<Found> readable(Principal caller, String fullName, Privilege needed) {
        return StreamRow.<StreamRow>find("fullName", fullName).<StreamRow>firstResult().flatMap(stream -> {
            if (stream == null) {
                throw RegistryException.notFound("stream '" + fullName + "' does not exist");
            }
            return TableRow.<TableRow>findById(stream.tableName).flatMap(table -> grants
                    .privileges(GrantRow.TABLE, stream.tableName, caller.name()).map(granted -> {
                        AccessPolicy.require(caller, table.owner, granted, needed, "table", stream.tableName);
                        return new Found(stream, table);
                    }));
        });
    }

    private Uni<Prepared> prepare(Principal caller, StreamChecks.Checked checked) {
        String destination = checked.destinationName();
        return StreamRow.count("fullName", checked.fullName()).flatMap(n -> {
            if (n > 0) {
                throw RegistryException.exists("name: stream '" + checked.fullName() + "' already exists; choose "
                        + "another name or delete it first");
            }
            return TableRow.<TableRow>findById(destination);
        }).flatMap(existing -> {
            if (existing != null) {
                throw RegistryException.exists(StreamChecks.DESTINATION + ": table '" + destination + "' already "
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
        StreamSchema streamSchema = StreamSchema.of(key, value);
        Schema rowSchema = streamSchema.rowSchema();
        IngestionTableSchema.checkColumnPaths(streamSchema, checked.deduplicationColumns());
        // Names cannot climb out of the warehouse, but a link inside it can point anywhere.
        allowedLocations.check(StreamChecks.DESTINATION, p.destinationLocation());
        if (p.backfillLocation() != null) {
            allowedLocations.check(StreamChecks.BACKFILL, p.backfillLocation());
        }
        if (tables.exists(p.destinationLocation())) {
            throw RegistryException.exists(StreamChecks.DESTINATION + ": a Delta table already exists at "
                    + p.destinationLocation() + "; choose another table name");
        }
        if (p.backfillLocation() != null) {
            checkBackfillSource(checked.backfillName(), p.backfillLocation());
        }
        StartPositions.Captured start;
        try {
            start = StartPositions.captureWithTopicIds(p.sources().kafkaProperties(), checked.subscription(),
                    kafkaTimeout);
        } catch (StartPositions.KafkaAccessException e) {
            // Name the connection: the brokers alone do not tell the user which registry object to fix.
            String via = checked.connectionName() == null ? "" : "connection '" + checked.connectionName() + "': ";
            throw RegistryException.invalid("connection_config", via + e.getMessage());
        }
        try {
            // With the topic ids: a topic recreated before the first commit is then told apart (SPEC 4).
            tables.create(p.destinationLocation(), rowSchema, start.positions(), start.topicIds());
        } catch (TableExistsException e) {
            throw RegistryException.exists(StreamChecks.DESTINATION + ": a Delta table already exists at "
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
                p.sources().kafkaProperties(), p.sources().key(), p.sources().value(), now);
        return new Built(p, row, table, spec, start.positions());
    }

    private void checkBackfillSource(String name, String location) {
        if (!tables.exists(location)) {
            throw RegistryException.invalid(StreamChecks.BACKFILL, "no Delta table '" + name + "' at " + location
                    + "; register it with POST /api/2.1/unity-catalog/tables or create it there");
        }
        boolean hasTimestamp = tables.columns(location).stream()
                .anyMatch(c -> c.name().equals(TIMESTAMP_COLUMN) && c.type().equalsIgnoreCase("timestamp"));
        if (!hasTimestamp) {
            throw RegistryException.invalid(StreamChecks.BACKFILL, "table '" + name + "' has no column "
                    + TIMESTAMP_COLUMN + " of type timestamp; the backfill needs it to find the overlap");
        }
    }

    private static SideSchema compile(io.tributary.schema.SchemaSource source, String field) {
        try {
            return SideSchema.compile(source, field);
        } catch (InvalidSchemaException e) {
            String path = e.field() == null ? field
                    : e.field().startsWith("schema_config") ? e.field() : "schema_config." + e.field();
            throw RegistryException.invalid(path, e.getMessage());
        }
    }

    private Optional<IngestionStatus> liveStatus(String streamId) {
        List<IngestionStatusSource> sources = statusSourceList;
        if (sources == null) {
            // Resolved once: a list page asks for 50 statuses, and each walk of an Instance looks the beans up again.
            sources = statusSourceList = statusSources.stream().toList();
        }
        for (IngestionStatusSource source : sources) {
            Optional<IngestionStatus> status = source.status(streamId);
            if (status.isPresent()) {
                return status;
            }
        }
        return Optional.empty();
    }

    /**
     * The live status when this process runs the pipeline and has read the table, else what the table's own log says
     * (a pipeline that has just started does not know its table version yet).
     */
    private Uni<IngestionStatus> status(StreamRow row, String location) {
        Optional<IngestionStatus> live = liveStatus(row.id)
                .filter(s -> s.tableVersion() >= 0 || s.state() == IngestionStatus.State.FAILED);
        if (live.isPresent()) {
            return Uni.createFrom().item(live.get());
        }
        return Blocking.call(() -> {
            try {
                DeltaTable table = tables.open(location);
                DeltaTable.Status s = table.status();
                List<IngestionStatus.PartitionStatus> partitions = new ArrayList<>();
                var positions = table.positionDetails();
                positions.forEach((k, p) -> partitions.add(
                        new IngestionStatus.PartitionStatus(k.topic(), k.partition(), p.next(), -1)));
                return new IngestionStatus(IngestionStatus.State.RUNNING, null, s.lastCommitAt().orElse(null),
                        s.version(), s.numRecords(), s.decodeFailures(), partitions,
                        IngestionStatus.TopicRecreation.of(positions));
            } catch (RuntimeException e) {
                LOG.warnf("reading the status of stream %s from its table failed: %s", row.fullName,
                        e.getClass().getName());
                return new IngestionStatus(IngestionStatus.State.FAILED, "the ingestion table at " + location
                        + " cannot be read", null, -1, 0, 0, List.of());
            }
        });
    }

    private static Throwable conflictOnRace(Throwable e) {
        if (e instanceof RegistryException) {
            return e;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.hibernate.exception.ConstraintViolationException
                    || String.valueOf(t.getMessage()).contains("duplicate key")) {
                return RegistryException.exists("name: the stream or its ingestion table was created concurrently "
                        + "by another request");
            }
        }
        return e;
    }

    private static String encodeToken(String lastName) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(("n:" + lastName).getBytes(StandardCharsets.UTF_8));
    }

    private static String decodeToken(String token) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            if (text.startsWith("n:")) {
                return text.substring(2);
            }
        } catch (IllegalArgumentException e) {
            // fall through
        }
        throw RegistryException.invalid("page_token", "is not a token this server issued; pass next_page_token "
                + "from the previous response unchanged");
    }
}
