package io.tributary.registry.service;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineControl;
import io.tributary.registry.lock.StreamWriteLocks;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.Names;
import io.tributary.registry.request.StreamChecks;
import io.tributary.registry.request.StreamDefinition;
import io.tributary.ingest.RescuedRecords;
import io.tributary.registry.store.GrantRow;
import io.tributary.registry.store.GrantStore;
import io.tributary.registry.store.StreamRow;
import io.tributary.registry.store.TableRow;
import io.tributary.registry.view.JsonBody;
import io.tributary.registry.view.StreamReads;
import io.tributary.registry.view.StreamViews;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import io.tributary.delta.TableHistory;

/** Create, get, list and delete streams (SPEC 2.3), with the checks of SPEC 3 and 4.2. */
@ApplicationScoped
public class StreamService {
    @Inject
    Tables tables;
    @Inject
    GrantStore grants;
    @Inject
    Instance<PipelineControl> pipelines;
    @Inject
    StreamReads reads;
    @Inject
    StreamWriteLocks writeLocks;
    @Inject
    StreamCreation creation;
    @Inject
    StreamStatuses statuses;

    public Uni<JsonBody> create(Principal caller, StreamDefinition definition) {
        return creation.create(caller, definition);
    }

    public Uni<JsonBody> get(Principal caller, String nameParam) {
        String fullName = Names.fullName("name", nameParam);
        return reads.one(fullName, caller.name()).flatMap(found -> {
            if (found == null) {
                throw ApiException.notFound("stream '" + fullName + "' does not exist");
            }
            AccessPolicy.require(caller, found.tableOwner(), found.privileges(), Privilege.SELECT, "table",
                    found.stream().tableName);
            return statuses.of(found.stream(), found.tableLocation()).flatMap(status -> rescued(found)
                    .map(rescued -> StreamViews.one(found.stream(), status, rescued)));
        });
    }

    /** Most commit files one history call reads: an hour of a 1 s trigger, and bounded on S3 (one GET each). */
    static final int HISTORY_MAX_COMMITS = 3600;

    /**
     * The rows the stream's table gained per minute over the last {@code minutesParam} minutes (1–1440, default 60),
     * oldest minute first, every minute present, read from the table's Delta log (SPEC 8). Needs SELECT, as GET.
     */
    public Uni<Map<String, Object>> history(Principal caller, String nameParam, Integer minutesParam) {
        String fullName = Names.fullName("name", nameParam);
        int minutes = minutesParam == null ? 60 : minutesParam;
        if (minutes < 1 || minutes > 1440) {
            throw ApiException.invalid("minutes", minutes + " is out of range; use 1 to 1440");
        }
        return reads.one(fullName, caller.name()).flatMap(found -> {
            if (found == null) {
                throw ApiException.notFound("stream '" + fullName + "' does not exist");
            }
            AccessPolicy.require(caller, found.tableOwner(), found.privileges(), Privilege.SELECT, "table",
                    found.stream().tableName);
            Instant to = Instant.now().truncatedTo(ChronoUnit.MINUTES);
            Instant since = to.minus(minutes - 1L, ChronoUnit.MINUTES);
            return Blocking.call(() -> {
                try {
                    return tables.history(found.tableLocation(), since, HISTORY_MAX_COMMITS);
                } catch (io.tributary.delta.NoSuchTableException e) {
                    return new TableHistory(-1, List.of(), true); // deleted meanwhile: nothing to show
                }
            })
                    .map(history -> historyView(fullName, minutes, since, history));
        });
    }

    private static Map<String, Object> historyView(String name, int minutes, Instant since, TableHistory history) {
        long[] rows = new long[minutes];
        int[] commits = new int[minutes];
        for (TableHistory.Commit c : history.commits()) {
            long i = ChronoUnit.MINUTES.between(since, c.timestamp().truncatedTo(ChronoUnit.MINUTES));
            if (i >= 0 && i < minutes) {
                rows[(int) i] += c.rowsAdded();
                commits[(int) i]++;
            }
        }
        List<Map<String, Object>> perMinute = new ArrayList<>(minutes);
        for (int i = 0; i < minutes; i++) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("minute", StreamViews.time(since.plus(i, ChronoUnit.MINUTES)));
            m.put("rows", rows[i]);
            m.put("commits", commits[i]);
            perMinute.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        out.put("minutes", minutes);
        out.put("table_version", history.latestVersion());
        out.put("complete", history.complete());
        out.put("rows_per_minute", perMinute);
        return out;
    }

    /**
     * Keyset paging on the full name: the page token is the last name returned, so pages stay stable while streams
     * come and go. The readability filter runs in SQL so a page is always full when more readable streams exist.
     */
    public Uni<JsonBody> list(Principal caller, String catalogParam, String schemaParam, Integer maxResultsParam,
            String pageToken, boolean includeSchemas) {
        if (catalogParam == null || catalogParam.isEmpty()) {
            throw ApiException.missing("catalog_name");
        }
        String catalog = Names.onePart("catalog_name", catalogParam);
        String schema = schemaParam == null || schemaParam.isEmpty() ? null : Names.onePart("schema_name", schemaParam);
        int maxResults = maxResultsParam == null ? 50 : maxResultsParam;
        if (maxResults < 1 || maxResults > 1000) {
            throw ApiException.invalid("max_results", maxResults + " is out of range; use 1 to 1000");
        }
        String after = pageToken == null || pageToken.isEmpty() ? null : decodeToken(pageToken);
        return reads.page(caller, catalog, schema, after, maxResults + 1).map(rows -> {
            List<StreamRow> page = rows.size() > maxResults ? rows.subList(0, maxResults) : rows;
            List<IngestionStatus> live = new ArrayList<>(page.size());
            for (StreamRow row : page) {
                live.add(statuses.live(row.id).orElse(null));
            }
            String next = rows.size() > maxResults ? encodeToken(page.get(page.size() - 1).fullName) : null;
            return StreamViews.page(page, live, includeSchemas, next);
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

    /**
     * {@code ingestion_status.rescued_records} of a stream with rescue on, from the table's file statistics; null
     * without rescue, or when the table cannot be read (the status says so already).
     */
    private Uni<Long> rescued(StreamReads.One found) {
        if (!StreamChecks.rescues(found.stream().definition)) {
            return Uni.createFrom().nullItem();
        }
        return Blocking.call(() -> {
            try {
                return RescuedRecords.count(tables.open(found.tableLocation()));
            } catch (RuntimeException e) {
                return null;
            }
        });
    }

    private record Found(StreamRow stream, TableRow table) {}

    private Uni<Found> readable(Principal caller, String fullName, Privilege needed) {
        return StreamRow.<StreamRow>find("fullName", fullName).<StreamRow>firstResult().flatMap(stream -> {
            if (stream == null) {
                throw ApiException.notFound("stream '" + fullName + "' does not exist");
            }
            return TableRow.<TableRow>findById(stream.tableName).flatMap(table -> grants
                    .privileges(GrantRow.TABLE, stream.tableName, caller.name()).map(granted -> {
                        AccessPolicy.require(caller, table.owner, granted, needed, "table", stream.tableName);
                        return new Found(stream, table);
                    }));
        });
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
        throw ApiException.invalid("page_token", "is not a token this server issued; pass next_page_token "
                + "from the previous response unchanged");
    }
}
