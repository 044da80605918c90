package io.tributary.registry.features;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.smallrye.mutiny.Uni;
import io.tributary.delta.TableChanges;
import io.tributary.delta.TableExistsException;
import io.tributary.delta.TableSnapshot;
import io.tributary.delta.Tables;
import io.tributary.features.EntityKeys;
import io.tributary.features.FeatureDefinitionException;
import io.tributary.features.FeatureLookup;
import io.tributary.features.FeatureState;
import io.tributary.features.FeatureStore;
import io.tributary.features.FeatureViewCompiler;
import io.tributary.features.FeatureViewSpec;
import io.tributary.features.PointInTime;
import io.tributary.online.SyncException;
import io.tributary.registry.online.SyncedTableStore;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.Names;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.service.Blocking;
import io.tributary.registry.view.JsonBody;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Feature views (SPEC "Feature views"): create, get, list, delete and lookup. Access follows the source table's
 * grants, as for synced tables: SELECT on it to create, read and look up; MANAGE on it (or owning the view) to delete.
 */
@ApplicationScoped
public class FeatureViewService {
    static final int MAX_LOOKUP_KEYS = 1000;

    @Inject
    FeatureViewStore registry;
    @Inject
    SyncedTableStore sources;
    @Inject
    FeatureViews views;
    @Inject
    Tables tables;
    @Inject
    io.tributary.registry.online.OnlineReads reads;
    @Inject
    jakarta.enterprise.event.Event<io.tributary.registry.service.AfterCommitWorkChanged> afterCommitWork;

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record StatusView(String state, String message, Long consumedSourceVersion, Long sourceVersion,
            Long lagVersions, Long lagMs, String watermark, String maxEventTime, Long recordsRead,
            Long lateRecordsDropped, Long recordsSkipped, String lastUpdate) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record FeatureView(String name, String id, String sourceTableName, List<String> entityColumns,
            List<String> entityNames, String timestampColumn, String allowedLateness, Object features,
            String offlineTableLocation, String owner, String createdAt, StatusView materializationStatus) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record FeatureViewList(List<FeatureView> featureViews) {}

    public Uni<FeatureView> create(Principal caller, FeatureViewRequests.Create request) {
        List<String> parts = Names.threePart("name", request.name());
        String fullName = String.join(".", parts);
        FeatureViewRequests.Source source = request.source();
        if (source == null || (source.streamName() == null) == (source.tableName() == null)) {
            throw ApiException.invalid("source", "give exactly one of {\"stream_name\": \"catalog.schema.stream\"} "
                    + "and {\"table_name\": \"catalog.schema.table\"}");
        }
        return Blocking.call(() -> {
            String sourceTable;
            String streamId = null;
            if (source.streamName() != null) {
                String stream = String.join(".", Names.threePart("source.stream_name", source.streamName()));
                String[] found = registry.stream(stream).orElseThrow(() -> ApiException.notFound(
                        "source.stream_name: stream '" + stream + "' does not exist"));
                streamId = found[0];
                sourceTable = found[1];
            } else {
                sourceTable = String.join(".", Names.threePart("source.table_name", source.tableName()));
            }
            SyncedTableStore.Source src = sources.source(sourceTable);
            List<String> sp = Names.threePart("source", sourceTable);
            String location = src.registeredLocation() != null ? src.registeredLocation()
                    : tables.defaultLocation(sp.get(0), sp.get(1), sp.get(2));
            if (!tables.exists(location)) {
                throw ApiException.notFound("source.table_name: table '" + sourceTable + "' does not exist (no Delta "
                        + "table at " + location + ")");
            }
            AccessPolicy.require(caller, src.owner(), sources.privileges(sourceTable, caller.name()), Privilege.SELECT,
                    "table", sourceTable);
            if (registry.find(fullName).isPresent()) {
                throw ApiException.exists("name: feature view '" + fullName + "' already exists");
            }
            String offline = tables.defaultLocation(parts.get(0), parts.get(1), parts.get(2));
            if (registry.tableAt(offline) || tables.exists(offline)) {
                throw ApiException.exists("name: the offline feature table of '" + fullName + "' would be at "
                        + offline + ", where a table already is; choose another name");
            }
            String id = UUID.randomUUID().toString();
            String online = "fv_" + id.replace("-", "").substring(0, 24);
            try (TableChanges changes = tables.changesSince(location, -1)) {
                FeatureViewSpec spec = compile(id, fullName, location, offline, online, request, changes);
                FeatureViewRow row = new FeatureViewRow(fullName, id, sourceTable, location, streamId, offline,
                        online, RegistryJson.write(request), caller.name(),
                        Instant.now().truncatedTo(ChronoUnit.MILLIS));
                if (!registry.insert(row)) {
                    throw ApiException.exists("name: feature view '" + fullName + "' already exists");
                }
                views.provision(spec);
                views.submitFirst(row);
                afterCommitWork.fire(new io.tributary.registry.service.AfterCommitWorkChanged());
                return view(row);
            }
        });
    }

    private static FeatureViewSpec compile(String id, String name, String location, String offline, String online,
            FeatureViewRequests.Create request, TableChanges changes) {
        if (changes.unsupportedIncrementally().isPresent()) {
            throw ApiException.invalid("source", changes.unsupportedIncrementally().get());
        }
        try {
            return FeatureViewCompiler.compile(id, name, location, offline, online, request.definition(),
                    changes.columns());
        } catch (FeatureDefinitionException e) {
            throw ApiException.invalid(e.field(), e.getMessage());
        }
    }

    public Uni<FeatureView> get(Principal caller, String nameParam) {
        String fullName = String.join(".", Names.threePart("name", nameParam));
        return Blocking.call(() -> view(readable(caller, fullName)));
    }

    public Uni<FeatureViewList> list(Principal caller, String catalog, String schema) {
        String p = Names.listPrefix(catalog, schema);
        return Blocking.call(() -> {
            List<FeatureView> out = new ArrayList<>();
            for (FeatureViewRow row : registry.list(p)) {
                SyncedTableStore.Source src = sources.source(row.sourceTableName());
                if (AccessPolicy.allows(caller, readOwner(src, row), sources.privileges(row.sourceTableName(),
                        caller.name()), Privilege.SELECT)) {
                    out.add(view(row));
                }
            }
            return new FeatureViewList(out);
        });
    }

    public Uni<Map<String, Object>> delete(Principal caller, String nameParam) {
        String fullName = String.join(".", Names.threePart("name", nameParam));
        return Blocking.call(() -> {
            // Owning the view is enough (SPEC §10.1), SELECT on the source included: once the source stream is
            // deleted nobody but an admin holds SELECT on it, and its views must still be deletable by their owners.
            FeatureViewRow row = registry.find(fullName).orElseThrow(() -> ApiException.notFound("feature view '"
                    + fullName + "' does not exist"));
            if (!caller.name().equals(row.owner())) {
                SyncedTableStore.Source src = sources.source(row.sourceTableName());
                AccessPolicy.require(caller, src.owner(), sources.privileges(row.sourceTableName(), caller.name()),
                        Privilege.MANAGE, "table", row.sourceTableName());
            }
            // The state row and online tables first, by the row's id and table prefix alone (never by compiling the
            // view: its source may be gone, and a server that never compiled it would then leave the tables behind).
            // Dropping the state row waits for a round in flight (its lock), and a round that starts later finds no
            // state row and writes nothing, so the offline table can go next; the registry row goes last, so a
            // delete cut short (a crash, a failed drop) is still listed and a second DELETE finishes it.
            views.store().drop(row.id(), row.fullName(), row.onlineTables());
            tables.delete(row.offlineLocation());
            registry.delete(fullName);
            views.forget(row.id());
            readableViews.removeIf(k -> k.endsWith("\n" + fullName));
            return Map.of();
        });
    }

    public Uni<JsonBody> lookup(Principal caller, String nameParam, FeatureViewRequests.Lookup request) {
        String fullName = String.join(".", Names.threePart("name", nameParam));
        List<Map<String, Object>> keys = request.keys();
        if (keys == null || keys.isEmpty() || keys.size() > MAX_LOOKUP_KEYS) {
            throw ApiException.invalid("keys", "send 1 to " + MAX_LOOKUP_KEYS + " keys, got "
                    + (keys == null ? 0 : keys.size()));
        }
        // The view and the caller's access come from the 2 s cache (read again ahead of expiry, one read at a time,
        // on a worker); a point-in-time key, which reads the offline table, is answered on a worker too.
        String cached = io.tributary.registry.service.ExpiringCache.perCaller(caller, fullName);
        return readableViews.get(cached, () -> readable(caller, fullName))
                .chain(row -> answer(row, keys).onFailure().recoverWithUni(e -> Blocking.call(() -> readable(caller,
                        fullName)).chain(current -> {
                            // The remembered view may be one another server deleted and created again under its
                            // name (other features, other entity columns) within the cache's 2 s: its online tables
                            // are gone (before: a 404 for a view that exists) and its keys and offline columns are not
                            // the new view's (before: 400s for the new keys, 500s, or as-of answers read from the new
                            // offline table with the old definition). A failure is answered only if the view is still
                            // the one it was; otherwise the lookup runs once more, with the view as it is now.
                            if (current.id().equals(row.id())) {
                                return Uni.createFrom().failure(e);
                            }
                            readableViews.remove(cached);
                            return answer(current, keys);
                        })));
    }

    /** Thrown when an as-of lookup finds the view it was given is no longer the one under its name. */
    private static final class ViewReplaced extends RuntimeException {
        ViewReplaced() {
            super(null, null, false, false);
        }
    }

    private Uni<JsonBody> answer(FeatureViewRow row, List<Map<String, Object>> keys) {
        FeatureViewSpec known = views.cachedSpec(row.id());
        return (known != null ? Uni.createFrom().item(known) : Blocking.call(() -> spec(row))).chain(spec -> {
            ParsedKeys parsed = parse(spec, keys);
            if (parsed.keys().stream().allMatch(k -> k.asOf() == null)) {
                return lookupNow(spec, parsed);
            }
            return Blocking.call(() -> {
                // The offline table's location comes from the view's name: a view created again under it has its
                // table there, with its own columns. Its registry row is read here (a worker, before a Delta scan
                // that costs far more), since nothing else would tell the two apart.
                if (!registry.find(row.fullName()).map(r -> r.id().equals(row.id())).orElse(false)) {
                    throw new ViewReplaced();
                }
                return body(spec, parsed.keys(), parsed.entityValues(),
                        views.lookup().lookup(spec, parsed.keys(), Instant.now()));
            });
        });
    }

    /** The request's keys, checked against the view, with each one's entity column values. */
    private record ParsedKeys(List<FeatureLookup.Key> keys, List<List<Object>> entityValues) {}

    private ParsedKeys parse(FeatureViewSpec spec, List<Map<String, Object>> keys) {
        List<FeatureLookup.Key> parsed = new ArrayList<>(keys.size());
        List<List<Object>> entityValues = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            List<Object> values = new ArrayList<>();
            parsed.add(key(i, keys.get(i), spec, values));
            entityValues.add(values);
        }
        return new ParsedKeys(parsed, entityValues);
    }

    /**
     * As of now, every key: one statement on the reactive client from this event loop ({@link
     * FeatureStore#nowStatement}), its rows combined here; no worker, no transaction.
     */
    private Uni<JsonBody> lookupNow(FeatureViewSpec spec, ParsedKeys keys) {
        List<FeatureLookup.Key> parsed = keys.keys();
        List<List<Object>> entityValues = keys.entityValues();
        String[] entities = parsed.stream().map(FeatureLookup.Key::entity).distinct().toArray(String[]::new);
        long now = System.currentTimeMillis();
        return reads.query(views.store().nowStatement(spec), Tuple.of(spec.id()).addArrayOfString(entities), rows -> {
            FeatureLookup.Now answer = new FeatureLookup.Now(spec, now);
            for (Row r : rows) {
                Buffer agg = r.getBuffer(5);
                answer.row(r.getInteger(0), r.getString(1), r.getShort(2), r.getLong(3), r.getLong(4),
                        agg == null ? null : agg.getBytes());
            }
            Map<String, Map<String, Object>> features = answer.features(java.util.Arrays.asList(entities));
            List<Map<String, Object>> found = new ArrayList<>(parsed.size());
            for (FeatureLookup.Key k : parsed) {
                found.add(features.get(k.entity()));
            }
            return body(spec, parsed, entityValues, found);
        }).onFailure(SyncException.class).transform(e -> ApiException.notFound("feature view '" + spec.name()
                + "': " + e.getMessage()));
    }

    /**
     * The lookup's answer: per key its entity columns (and as_of), then its features; null for a missing entity.
     * Written straight to the bytes, with no map per key in between (a lookup's garbage is what the collector's pauses,
     * which lookups wait in, are made of).
     */
    private static JsonBody body(FeatureViewSpec spec, List<FeatureLookup.Key> parsed, List<List<Object>> entityValues,
            List<Map<String, Object>> found) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(64 + 128 * found.size());
        try (com.fasterxml.jackson.core.JsonGenerator g = RegistryJson.MAPPER.createGenerator(bytes)) {
            g.writeStartObject();
            g.writeArrayFieldStart("results");
            for (int i = 0; i < found.size(); i++) {
                Map<String, Object> features = found.get(i);
                if (features == null) {
                    g.writeNull();
                    continue;
                }
                g.writeStartObject();
                for (int e = 0; e < spec.entityNames().size(); e++) {
                    g.writeFieldName(spec.entityNames().get(e));
                    g.writeObject(entityValues.get(i).get(e));
                }
                if (parsed.get(i).asOf() != null) {
                    g.writeStringField("as_of", parsed.get(i).asOf().toString());
                }
                for (Map.Entry<String, Object> f : features.entrySet()) {
                    g.writeFieldName(f.getKey());
                    Object v = f.getValue();
                    g.writeObject(v instanceof Double d && (d.isNaN() || d.isInfinite()) ? null : v);
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        return new JsonBody(bytes.toByteArray());
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record PointInTimeResult(String outputTable, String outputTableLocation, long outputVersion, long rows,
            long rowsWithFeatures, List<String> spineColumnsNotCopied) {}

    /**
     * Writes the features as of each row of the spine table to a new table (SPEC 10.1): SELECT on the view's source and
     * on the spine; the output goes to the default location of its name, which must be free (409).
     */
    public Uni<PointInTimeResult> pointInTime(Principal caller, String nameParam,
            FeatureViewRequests.PointInTime request) {
        String fullName = String.join(".", Names.threePart("name", nameParam));
        if (request.spineTable() == null) {
            throw ApiException.invalid("spine_table", "is required: the table of entity columns and a time, "
                    + "\"catalog.schema.table\"");
        }
        if (request.outputTable() == null) {
            throw ApiException.invalid("output_table", "is required: the name of the new table, "
                    + "\"catalog.schema.table\"");
        }
        String spineName = String.join(".", Names.threePart("spine_table", request.spineTable()));
        List<String> out = Names.threePart("output_table", request.outputTable());
        String outName = String.join(".", out);
        String tsColumn = request.timestampColumn() == null ? "as_of" : request.timestampColumn();
        return Blocking.call(() -> {
            FeatureViewRow row = readable(caller, fullName);
            FeatureViewSpec spec = spec(row);
            SyncedTableStore.Source spine = sources.source(spineName);
            List<String> sp = Names.threePart("spine_table", spineName);
            String spineLocation = spine.registeredLocation() != null ? spine.registeredLocation()
                    : tables.defaultLocation(sp.get(0), sp.get(1), sp.get(2));
            if (!tables.exists(spineLocation)) {
                throw ApiException.notFound("spine_table: table '" + spineName + "' does not exist (no Delta table "
                        + "at " + spineLocation + ")");
            }
            AccessPolicy.require(caller, spine.owner(), sources.privileges(spineName, caller.name()),
                    Privilege.SELECT, "table", spineName);
            String outLocation = tables.defaultLocation(out.get(0), out.get(1), out.get(2));
            if (sources.source(outName).registeredLocation() != null || registry.tableAt(outLocation)
                    || tables.exists(outLocation)) {
                throw ApiException.exists("output_table: a table '" + outName + "' already exists (at "
                        + outLocation + "); choose another name");
            }
            try {
                PointInTime.Result r = new PointInTime(tables).run(spec, spineLocation, tsColumn, outLocation);
                return new PointInTimeResult(outName, outLocation, r.outputVersion(), r.rows(), r.matched(),
                        r.columnsNotCopied());
            } catch (FeatureDefinitionException e) {
                throw ApiException.invalid(e.field(), e.getMessage());
            } catch (TableExistsException e) {
                throw ApiException.exists("output_table: a table '" + outName + "' already exists (at "
                        + outLocation + "); choose another name");
            }
        });
    }

    private static FeatureLookup.Key key(int index, Map<String, Object> key, FeatureViewSpec spec,
            List<Object> values) {
        String field = "keys[" + index + "]";
        if (key == null) {
            throw ApiException.invalid(field, "must be an object of the entity columns " + spec.entityNames()
                    + " and optionally as_of");
        }
        for (String name : key.keySet()) {
            if (!name.equals("as_of") && !spec.entityNames().contains(name)) {
                throw ApiException.invalid(field + "." + Names.shorten(name), "is not an entity column; the entity "
                        + "columns are " + spec.entityNames() + " (and as_of, an RFC 3339 time)");
            }
        }
        for (int i = 0; i < spec.entityNames().size(); i++) {
            String name = spec.entityNames().get(i);
            Object v = key.get(name);
            if (v == null) {
                throw ApiException.invalid(field + "." + name, "is required (the entity columns are "
                        + spec.entityNames() + ")");
            }
            boolean string = spec.entityTypes().get(i).equals("string");
            if (string ? !(v instanceof String) : !(v instanceof Integer || v instanceof Long
                    || v instanceof java.math.BigInteger)) {
                throw ApiException.invalid(field + "." + name, "must be " + (string ? "a string" : "an integer")
                        + " (the column is " + spec.entityTypes().get(i) + ")");
            }
            values.add(v);
        }
        Instant asOf = null;
        Object t = key.get("as_of");
        if (t != null) {
            if (!(t instanceof String s)) {
                throw ApiException.invalid(field + ".as_of", "must be an RFC 3339 time such as "
                        + "2026-12-01T10:00:00Z");
            }
            try {
                OffsetDateTime parsed = OffsetDateTime.parse(s);
                // RFC 3339 years have four digits; Java's parser takes up to 999999999, whose epoch milliseconds
                // overflow a long in the lookup (before: a 500).
                if (parsed.getYear() < 1 || parsed.getYear() > 9999) {
                    throw new DateTimeParseException("year out of range", s, 0);
                }
                asOf = parsed.toInstant();
            } catch (DateTimeParseException e) {
                throw ApiException.invalid(field + ".as_of", "must be an RFC 3339 time such as "
                        + "2026-12-01T10:00:00Z, got '" + Names.shorten(s) + "'");
            }
        }
        return new FeatureLookup.Key(EntityKeys.of(values), asOf);
    }

    // ---- access and views

    private FeatureViewRow readable(Principal caller, String fullName) {
        FeatureViewRow row = registry.find(fullName).orElseThrow(() -> ApiException.notFound("feature view '"
                + fullName + "' does not exist"));
        SyncedTableStore.Source src = sources.source(row.sourceTableName());
        AccessPolicy.require(caller, readOwner(src, row), sources.privileges(row.sourceTableName(), caller.name()),
                Privilege.SELECT, "table", row.sourceTableName());
        return row;
    }

    /**
     * Whose ownership grants reading the view: the source's owner while the source exists; once it is deleted (no
     * registered table of its name), the view's own (SPEC §10.1, §10.3: what it computed stays readable until it is
     * deleted, and nobody but an admin holds SELECT on a source that is gone; before, its owner got 403 on GET).
     */
    private static String readOwner(SyncedTableStore.Source src, FeatureViewRow row) {
        return src.owner() != null ? src.owner() : row.owner();
    }

    /** How long a lookup reuses a view's row and a caller's access to it (as synced tables' lookups: SPEC §9.1). */
    static final java.time.Duration LOOKUP_CACHE = java.time.Duration.ofSeconds(2);

    private final io.tributary.registry.service.ExpiringCache<String, FeatureViewRow> readableViews =
            new io.tributary.registry.service.ExpiringCache<>(LOOKUP_CACHE);

    /** A grant changed here: forget every caller's remembered access at once (other servers' changes: 2 s). */
    void onGrantsChanged(@jakarta.enterprise.event.Observes io.tributary.registry.service.GrantsChanged change) {
        readableViews.clear();
    }

    private FeatureViewSpec spec(FeatureViewRow row) {
        try {
            return views.spec(row);
        } catch (FeatureDefinitionException e) {
            throw ApiException.invalid(e.field(), "the source no longer fits the feature view: " + e.getMessage());
        }
    }

    private FeatureView view(FeatureViewRow row) {
        FeatureViewRequests.Create d = RegistryJson.read(row.definition(), FeatureViewRequests.Create.class);
        FeatureState st = views.store().state(row.id());
        StatusView status;
        if (st == null) {
            status = new StatusView(FeatureState.PROVISIONING, null, null, null, null, null, null, null, null, null,
                    null, null);
        } else {
            String state = st.state();
            String message = st.message();
            String stopped = views.stoppedBecause(row);
            if (stopped != null) {
                state = FeatureState.STOPPED;
                message = stopped;
            }
            Long sourceVersion = null;
            Long lagMs = null;
            if (stopped == null) {
                TableSnapshot.Status s = tables.summary(row.sourceLocation()).status();
                sourceVersion = s.version();
                if (st.sourceCommittedAt() != null && s.lastCommitAt().isPresent()) {
                    lagMs = Math.max(0, s.lastCommitAt().get().toEpochMilli() - st.sourceCommittedAt().toEpochMilli());
                } else if (st.version() < 0) {
                    lagMs = null;
                }
            }
            status = new StatusView(state, message, st.version() < 0 ? null : st.version(), sourceVersion,
                    sourceVersion == null ? null : Math.max(0, sourceVersion - st.version()),
                    st.version() < 0 ? null : lagMs, time(st.watermark()), time(st.maxEventTime()), st.recordsRead(),
                    st.lateDropped(), st.skipped(), st.updatedAt() == null ? null : st.updatedAt().toString());
        }
        List<String> names = d.entityColumns() == null ? List.of()
                : d.entityColumns().stream().map(c -> c.replace('.', '_')).toList();
        String ts = d.timestampColumn() == null ? FeatureViewCompiler.DEFAULT_TIMESTAMP : d.timestampColumn();
        return new FeatureView(row.fullName(), row.id(), row.sourceTableName(), d.entityColumns(), names, ts,
                d.allowedLateness() == null ? "0s" : d.allowedLateness(), d.features(), row.offlineLocation(),
                row.owner(), row.createdAt().toString(), status);
    }

    private static String time(long ms) {
        return ms == Long.MIN_VALUE ? null : Instant.ofEpochMilli(ms).toString();
    }
}
