package io.tributary.registry.online;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.smallrye.mutiny.Uni;
import io.tributary.delta.TableChanges;
import io.tributary.delta.Tables;
import io.tributary.online.OnlineColumns;
import io.tributary.online.SyncException;
import io.tributary.online.SyncPolicy;
import io.tributary.online.SyncState;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.Names;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.service.AfterCommitWorkChanged;
import io.tributary.registry.service.Blocking;
import io.tributary.registry.service.ExpiringCache;
import io.tributary.registry.service.GrantsChanged;
import io.tributary.registry.view.JsonBody;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Synced tables (SPEC "Synced tables"): create, get, list, delete, sync and lookup. Access follows the source table's
 * grants: SELECT on it to create, read and look up; MANAGE on it (or owning the synced table) to delete and sync.
 */
@ApplicationScoped
public class SyncedTableService {
    static final int MAX_LOOKUP_KEYS = 1000;
    /** How long a lookup reuses a synced table's definition and a caller's grants (see SPEC: revocations). */
    static final Duration LOOKUP_CACHE = Duration.ofSeconds(2);

    @Inject
    SyncedTableStore registry;
    @Inject
    OnlineDatabase online;
    @Inject
    SyncRunner runner;
    @Inject
    Tables tables;

    @Inject
    OnlineReads reads;
    @Inject
    jakarta.enterprise.event.Event<AfterCommitWorkChanged> afterCommitWork;

    private final ExpiringCache<String, LookupTarget> targets = new ExpiringCache<>(LOOKUP_CACHE);
    private final ExpiringCache<String, Boolean> readers = new ExpiringCache<>(LOOKUP_CACHE);

    /** A grant changed here: forget every caller's access at once (grants change rarely; lookups reload in 1 query). */
    void onGrantsChanged(@jakarta.enterprise.event.Observes GrantsChanged change) {
        readers.clear();
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SpecView(String sourceTableFullName, List<String> primaryKeyColumns, String timeseriesKey,
            String schedulingPolicy) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record StatusView(String state, String message, Long lastSyncedVersion, String lastSyncedAt,
            String sourceCommittedAt, Long delayMs, Long rows, Long rowsSynced, Long nullKeysSkipped,
            Long oversizedKeysSkipped, Long oversizedRowsSkipped) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SyncedTableView(String name, String id, SpecView spec, String postgresTable, String owner,
            String createdAt, StatusView dataSynchronizationStatus) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record SyncedTableList(List<SyncedTableView> syncedTables) {}

    public Uni<SyncedTableView> create(Principal caller, SyncedTableRequests.Create request) {
        List<String> parts = Names.threePart("name", request.name());
        String fullName = String.join(".", parts);
        SyncedTableRequests.Spec spec = request.spec();
        if (spec == null) {
            throw ApiException.missing("spec");
        }
        String source = String.join(".", Names.threePart("spec.source_table_full_name",
                spec.sourceTableFullName()));
        List<String> key = keyPaths(spec.primaryKeyColumns());
        String ts = spec.timeseriesKey() == null || spec.timeseriesKey().isBlank() ? null : spec.timeseriesKey();
        SyncPolicy policy = policy(spec.schedulingPolicy());
        String pgTable = String.join("__", parts);
        if (pgTable.getBytes(StandardCharsets.UTF_8).length > 63) {
            throw ApiException.invalid("name", "'" + fullName + "' makes the PostgreSQL table name '" + pgTable
                    + "' (catalog__schema__table), longer than PostgreSQL's 63 bytes; choose shorter name parts");
        }
        return Blocking.call(() -> {
            SyncedTableStore.Source src = registry.source(source);
            List<String> sp = Names.threePart("spec.source_table_full_name", source);
            String location = src.registeredLocation() != null ? src.registeredLocation()
                    : tables.defaultLocation(sp.get(0), sp.get(1), sp.get(2));
            if (!tables.exists(location)) {
                throw ApiException.notFound("spec.source_table_full_name: table '" + source + "' does not exist (no "
                        + "Delta table at " + location + ")");
            }
            AccessPolicy.require(caller, src.owner(), registry.privileges(source, caller.name()), Privilege.SELECT,
                    "table", source);
            check(location, key, ts, policy);
            if (registry.find(fullName).isPresent()) {
                throw ApiException.exists("name: synced table '" + fullName + "' already exists");
            }
            SyncedTableRow row = new SyncedTableRow(fullName, UUID.randomUUID().toString(), source, location,
                    src.streamId(), key, ts, policy, pgTable, caller.name(),
                    Instant.now().truncatedTo(ChronoUnit.MILLIS));
            if (!registry.insert(row)) {
                throw ApiException.exists("name: synced table '" + fullName + "' (PostgreSQL table " + pgTable
                        + ") already exists");
            }
            online.store().register(row.spec());
            runner.submitFirst(row);
            afterCommitWork.fire(new AfterCommitWorkChanged());
            return view(row);
        });
    }

    public Uni<SyncedTableView> get(Principal caller, String nameParam) {
        String fullName = String.join(".", Names.threePart("name", nameParam));
        return Blocking.call(() -> view(readable(caller, fullName)));
    }

    public Uni<SyncedTableList> list(Principal caller, String catalog, String schema) {
        String p = Names.listPrefix(catalog, schema);
        return Blocking.call(() -> {
            List<SyncedTableView> out = new ArrayList<>();
            for (SyncedTableRow row : registry.list(p)) {
                if (allowed(caller, row, Privilege.SELECT)) {
                    out.add(view(row));
                }
            }
            return new SyncedTableList(out);
        });
    }

    public Uni<Map<String, Object>> delete(Principal caller, String nameParam) {
        String fullName = String.join(".", Names.threePart("name", nameParam));
        return Blocking.call(() -> {
            SyncedTableRow row = managed(caller, fullName);
            targets.remove(fullName);
            runner.delete(row);
            targets.remove(fullName);
            return Map.of();
        });
    }

    public Uni<SyncedTableView> sync(Principal caller, String nameParam) {
        String fullName = String.join(".", Names.threePart("name", nameParam));
        return Blocking.call(() -> {
            SyncedTableRow row = managed(caller, fullName);
            runner.run(row);
            return view(row);
        });
    }

    /** PostgreSQL's undefined_column: a statement made for a definition the table no longer has. */
    private static final String UNDEFINED_COLUMN = "42703";

    public Uni<JsonBody> lookup(Principal caller, String nameParam, SyncedTableRequests.Lookup request) {
        String fullName = String.join(".", Names.threePart("name", nameParam));
        List<Map<String, Object>> keys = request.keys();
        if (keys == null || keys.isEmpty() || keys.size() > MAX_LOOKUP_KEYS) {
            throw ApiException.invalid("keys", "send 1 to " + MAX_LOOKUP_KEYS + " keys, got "
                    + (keys == null ? 0 : keys.size()));
        }
        // The definition and the caller's grants come from the caches (a registry read every 2 s at most); the
        // lookup itself is one statement on the reactive client, from this event loop.
        return lookupOnce(caller, fullName, keys)
                .onFailure(e -> e instanceof io.vertx.pgclient.PgException pg
                        && (OnlineReads.RESULT_TYPE_CHANGED.equals(pg.getSqlState())
                                || UNDEFINED_COLUMN.equals(pg.getSqlState())))
                .recoverWithUni(e -> {
                    // The table's columns changed since the cached definition: read it again, once. A column gone
                    // is the same story: the synced table was deleted and created again under its name over other
                    // columns, by another server, within the cache's 2 s (before: a 500 until it expired).
                    targets.remove(fullName);
                    return lookupOnce(caller, fullName, keys);
                })
                .onFailure(SyncException.class).transform(e -> new ApiException(
                        io.tributary.registry.request.ErrorCode.RESOURCE_DOES_NOT_EXIST, "synced table '" + fullName
                                + "': " + e.getMessage()))
                .map(JsonBody::new);
    }

    private Uni<byte[]> lookupOnce(Principal caller, String fullName, List<Map<String, Object>> keys) {
        return targets.get(fullName, () -> lookupTarget(fullName))
                .chain(target -> readers.get(ExpiringCache.perCaller(caller, fullName),
                        () -> AccessPolicy.allows(caller, target.sourceOwner(), registry.privileges(
                                target.row().sourceTableName(), caller.name()), Privilege.SELECT))
                        .chain(allowed -> {
                            if (!allowed) {
                                AccessPolicy.require(caller, target.sourceOwner(), Set.of(), Privilege.SELECT,
                                        "table", target.row().sourceTableName());
                            }
                            List<String[]> texts = new ArrayList<>(keys.size());
                            for (int i = 0; i < keys.size(); i++) {
                                texts.add(keyText(i, keys.get(i), target.keyColumns()));
                            }
                            String sql = keys.size() == 1 ? target.oneKey() : target.manyKeys();
                            return reads.lookup(sql, target.keyColumns().size(), texts);
                        }));
    }

    // ---- checks

    private static List<String> keyPaths(List<String> columns) {
        if (columns == null || columns.isEmpty()) {
            throw ApiException.invalid("spec.primary_key_columns", "name at least one column, as a dotted path such "
                    + "as value.user_id");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            String c = columns.get(i);
            if (c == null || c.isBlank() || c.length() > 1000 || c.chars().anyMatch(ch -> ch < 0x20)) {
                throw ApiException.invalid("spec.primary_key_columns[" + i + "]", "must be a dotted column path such "
                        + "as value.user_id");
            }
            out.add(c);
        }
        return out;
    }

    private static SyncPolicy policy(String text) {
        if (text == null) {
            throw ApiException.invalid("spec.scheduling_policy", "is required: one of SNAPSHOT, TRIGGERED, "
                    + "CONTINUOUS");
        }
        try {
            return SyncPolicy.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("spec.scheduling_policy", "must be one of SNAPSHOT, TRIGGERED, CONTINUOUS, "
                    + "got '" + Names.shorten(text) + "'");
        }
    }

    /** The source's schema must give the synced table its columns, key and timeseries key (each a 400 if not). */
    private void check(String location, List<String> key, String ts, SyncPolicy policy) {
        try (TableChanges changes = tables.changesSince(location, -1)) {
            OnlineColumns columns;
            try {
                columns = OnlineColumns.of(changes.columns());
            } catch (SyncException e) {
                throw ApiException.invalid("spec.source_table_full_name", e.getMessage());
            }
            try {
                columns.key(key);
            } catch (SyncException e) {
                throw ApiException.invalid("spec.primary_key_columns", e.getMessage());
            }
            try {
                columns.timeseries(ts);
            } catch (SyncException e) {
                throw ApiException.invalid("spec.timeseries_key", e.getMessage());
            }
            if (policy != SyncPolicy.SNAPSHOT && changes.unsupportedIncrementally().isPresent()) {
                throw ApiException.invalid("spec.scheduling_policy", changes.unsupportedIncrementally().get()
                        + "; use SNAPSHOT");
            }
        }
    }

    private SyncedTableRow find(String fullName) {
        return registry.find(fullName).orElseThrow(() -> ApiException.notFound("synced table '" + fullName
                + "' does not exist"));
    }

    private SyncedTableRow readable(Principal caller, String fullName) {
        SyncedTableRow row = find(fullName);
        SyncedTableStore.Source src = registry.source(row.sourceTableName());
        AccessPolicy.require(caller, readOwner(src, row), registry.privileges(row.sourceTableName(), caller.name()),
                Privilege.SELECT, "table", row.sourceTableName());
        return row;
    }

    /**
     * Whose ownership grants reading the synced table: the source's owner while the source exists; once it is deleted
     * (no registered table of its name), the synced table's own (SPEC §9.1, §9.3: its rows stay readable until it is
     * deleted, and nobody but an admin holds SELECT on a source that is gone; before, its owner got 403 on GET).
     */
    private static String readOwner(SyncedTableStore.Source src, SyncedTableRow row) {
        return src.owner() != null ? src.owner() : row.owner();
    }

    /**
     * Owning the synced table is enough (SPEC §9.1), SELECT on the source included: once the source stream is deleted
     * nobody but an admin holds SELECT on it, and the state message tells the owner to delete the synced table.
     */
    private SyncedTableRow managed(Principal caller, String fullName) {
        SyncedTableRow row = find(fullName);
        if (!caller.name().equals(row.owner())) {
            SyncedTableStore.Source src = registry.source(row.sourceTableName());
            AccessPolicy.require(caller, src.owner(), registry.privileges(row.sourceTableName(), caller.name()),
                    Privilege.MANAGE, "table", row.sourceTableName());
        }
        return row;
    }

    private boolean allowed(Principal caller, SyncedTableRow row, Privilege needed) {
        SyncedTableStore.Source src = registry.source(row.sourceTableName());
        return AccessPolicy.allows(caller, readOwner(src, row), registry.privileges(row.sourceTableName(),
                caller.name()), needed);
    }

    // ---- views

    private SyncedTableView view(SyncedTableRow row) {
        SyncState state = online.store().state(row.id());
        StatusView status;
        if (row.deleting()) {
            status = new StatusView(SyncState.DELETING, "a delete began at " + row.deletingSince() + " and did not "
                    + "finish; the next catch-up finishes it, or DELETE it again", null, null, null, null, null, null,
                    null, null, null);
        } else if (state == null) {
            status = new StatusView(SyncState.PROVISIONING, null, null, null, null, null, null, null, null, null,
                    null);
        } else {
            String stateName = state.state();
            String message = state.stateMessage();
            if (!SyncState.STOPPED.equals(stateName)) {
                String stopped = runner.stoppedBecause(row);
                if (stopped != null) {
                    stateName = SyncState.STOPPED;
                    message = stopped;
                }
            }
            long rows = online.store().rowCount(row.pgTable());
            Long delay = state.syncedAt() == null || state.sourceCommittedAt() == null ? null
                    : Math.max(0, Duration.between(state.sourceCommittedAt(), state.syncedAt()).toMillis());
            status = new StatusView(stateName, message, state.version() < 0 ? null : state.version(),
                    text(state.syncedAt()), text(state.sourceCommittedAt()), delay, rows < 0 ? 0 : rows,
                    state.rowsSynced(), state.nullKeysSkipped(), state.oversizedKeysSkipped(),
                    state.oversizedRowsSkipped());
        }
        return new SyncedTableView(row.fullName(), row.id(), new SpecView(row.sourceTableName(),
                row.primaryKeyColumns(), row.timeseriesKey(), row.policy().name()),
                online.store().schema() + "." + row.pgTable(), row.owner(), text(row.createdAt()), status);
    }

    private static String text(Instant i) {
        return i == null ? null : i.toString();
    }

    // ---- lookups

    /** What a lookup needs of a synced table, with its two statements (built once per cache period). */
    private record LookupTarget(SyncedTableRow row, String sourceOwner, List<SyncState.StoredColumn> keyColumns,
            String oneKey, String manyKeys) {}

    private LookupTarget lookupTarget(String fullName) {
        SyncedTableRow row = find(fullName);
        SyncState state = online.store().state(row.id());
        if (state == null || state.columns().isEmpty()) {
            throw ApiException.notFound("synced table '" + fullName + "' has not synced yet: its PostgreSQL table "
                    + "does not exist; look again once its state is ONLINE");
        }
        List<SyncState.StoredColumn> key = new ArrayList<>();
        for (String path : row.primaryKeyColumns()) {
            key.add(state.column(path.replace('.', '_')));
        }
        return new LookupTarget(row, readOwner(registry.source(row.sourceTableName()), row), key,
                reads.statement(row.pgTable(), state.columns(), key, 1),
                reads.statement(row.pgTable(), state.columns(), key, 2));
    }

    /** A key's values as text for their casts, checked against the key columns' types. */
    private static String[] keyText(int index, Map<String, Object> key, List<SyncState.StoredColumn> columns) {
        String field = "keys[" + index + "]";
        if (key == null) {
            throw ApiException.invalid(field, "must be an object of the key columns " + names(columns));
        }
        for (String name : key.keySet()) {
            if (columns.stream().noneMatch(c -> c.name().equals(name))) {
                throw ApiException.invalid(field + "." + Names.shorten(name), "is not a key column; the key columns "
                        + "are " + names(columns));
            }
        }
        String[] out = new String[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            SyncState.StoredColumn c = columns.get(i);
            if (!key.containsKey(c.name())) {
                throw ApiException.invalid(field, "lacks the key column '" + c.name() + "'; the key columns are "
                        + names(columns));
            }
            Object v = key.get(c.name());
            out[i] = v == null ? null : text(field + "." + c.name(), c.pgType(), v);
        }
        return out;
    }

    private static String text(String field, String pgType, Object v) {
        boolean integer = pgType.equals("smallint") || pgType.equals("integer") || pgType.equals("bigint");
        if (integer || pgType.startsWith("numeric")) {
            if (v instanceof Integer || v instanceof Long || v instanceof BigInteger
                    || (!integer && (v instanceof Double || v instanceof BigDecimal))) {
                // A value the column cannot hold is the caller's mistake, not a lookup that fails in PostgreSQL
                // (before: 22003 "out of range" answered 500).
                if (!fits(pgType, new BigDecimal(v.toString()))) {
                    throw ApiException.invalid(field, "is out of the range of the column's type " + pgType);
                }
                return v.toString();
            }
            throw ApiException.invalid(field, "must be " + (integer ? "an integer" : "a number") + " (the column is "
                    + pgType + ")");
        }
        if (v instanceof String s) {
            if (s.length() > 10_000 || s.indexOf('\0') >= 0) {
                throw ApiException.invalid(field, "must be a string of at most 10000 characters without NUL (a NUL "
                        + "the source held is stored, and looked up, as U+FFFD)");
            }
            if (!pgType.equals("text") && !validTemporal(pgType, s)) {
                throw ApiException.invalid(field, "must be a " + pgType + " as text (RFC 3339 for timestamps, "
                        + "yyyy-mm-dd for dates)");
            }
            return s;
        }
        throw ApiException.invalid(field, "must be a string (the column is " + pgType + ")");
    }

    private static final BigDecimal[] INTEGER_BOUNDS = {BigDecimal.valueOf(Short.MIN_VALUE),
        BigDecimal.valueOf(Short.MAX_VALUE), BigDecimal.valueOf(Integer.MIN_VALUE),
        BigDecimal.valueOf(Integer.MAX_VALUE), BigDecimal.valueOf(Long.MIN_VALUE), BigDecimal.valueOf(Long.MAX_VALUE)};
    private static final java.util.regex.Pattern NUMERIC =
            java.util.regex.Pattern.compile("numeric\\((\\d+),(\\d+)\\)");

    /** Whether PostgreSQL can hold {@code v} in a column of this type (numeric(p,s) as it rounds: to s places). */
    static boolean fits(String pgType, BigDecimal v) {
        int bounds = switch (pgType) {
            case "smallint" -> 0;
            case "integer" -> 2;
            case "bigint" -> 4;
            default -> -1;
        };
        if (bounds >= 0) {
            return v.compareTo(INTEGER_BOUNDS[bounds]) >= 0 && v.compareTo(INTEGER_BOUNDS[bounds + 1]) <= 0;
        }
        java.util.regex.Matcher m = NUMERIC.matcher(pgType);
        if (m.matches()) {
            int precision = Integer.parseInt(m.group(1));
            int scale = Integer.parseInt(m.group(2));
            BigDecimal rounded = v.setScale(scale, java.math.RoundingMode.HALF_UP);
            return rounded.signum() == 0 || rounded.precision() - rounded.scale() <= precision - scale;
        }
        // plain numeric: PostgreSQL's limit (131072 digits before the point) is far beyond a JSON number's
        return v.precision() - v.scale() <= 131_072;
    }

    /**
     * RFC 3339 and PostgreSQL's types both stop at four-digit years (PostgreSQL has no year 0 either): Java's parsers
     * take years up to 999999999, which PostgreSQL refuses with an error that answered 500.
     */
    private static boolean validTemporal(String pgType, String s) {
        try {
            int year = switch (pgType) {
                case "date" -> java.time.LocalDate.parse(s).getYear();
                case "timestamptz" -> java.time.OffsetDateTime.parse(s).getYear();
                case "timestamp" -> java.time.LocalDateTime.parse(s).getYear();
                default -> 1;
            };
            return year >= 1 && year <= 9999;
        } catch (java.time.format.DateTimeParseException e) {
            return false;
        }
    }

    private static List<String> names(List<SyncState.StoredColumn> columns) {
        return columns.stream().map(SyncState.StoredColumn::name).toList();
    }

}
