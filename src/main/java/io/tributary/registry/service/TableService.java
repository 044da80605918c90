package io.tributary.registry.service;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.delta.Column;
import io.tributary.delta.Tables;
import io.tributary.registry.request.AllowedLocations;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.Names;
import io.tributary.registry.request.Requests;
import io.tributary.registry.store.Conflicts;
import io.tributary.registry.store.GrantRow;
import io.tributary.registry.store.GrantStore;
import io.tributary.registry.store.TableRow;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** Tables as Unity Catalog shows them (SPEC 2.4): ingestion tables, registered external tables, warehouse tables. */
@ApplicationScoped
public class TableService {

    @Inject
    Tables tables;
    @Inject
    GrantStore grants;
    @Inject
    AllowedLocations allowedLocations;

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TableView(String name, String catalogName, String schemaName, String tableType,
            String storageLocation, List<ColumnView> columns, String owner) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record ColumnView(String name, String typeText, boolean nullable, int position) {}

    /** Where a table name points: a registered row, else the default warehouse location. */
    public record Resolved(String fullName, String location, TableRow row) {
        public String owner() {
            return row == null ? null : row.owner;
        }
    }

    public Uni<TableView> get(Principal caller, String fullNameParam) {
        List<String> parts = Names.threePart("full_name", fullNameParam);
        String fullName = String.join(".", parts);
        record Access(Resolved resolved, java.util.Set<Privilege> granted) {}
        return Panache.withSession(() -> resolve(parts)
                .flatMap(r -> grants.privileges(GrantRow.TABLE, fullName, caller.name())
                        .map(granted -> new Access(r, granted))))
                .flatMap(access -> Blocking.call(() -> {
                    Resolved r = access.resolved();
                    if (!tables.exists(r.location())) {
                        throw ApiException.notFound("table '" + fullName + "' does not exist (no Delta table at "
                                + "its location)");
                    }
                    AccessPolicy.require(caller, r.owner(), access.granted(), Privilege.SELECT, "table", fullName);
                    List<Column> columns = tables.columns(r.location());
                    List<ColumnView> views = new java.util.ArrayList<>();
                    for (int i = 0; i < columns.size(); i++) {
                        Column c = columns.get(i);
                        views.add(new ColumnView(c.name(), c.type(), c.nullable(), i));
                    }
                    return new TableView(fullName, parts.get(0), parts.get(1),
                            r.row() == null || TableRow.INGESTION.equals(r.row().kind) ? "MANAGED" : "EXTERNAL",
                            r.location(), views, r.owner());
                }));
    }

    public Uni<TableView> register(Principal caller, Requests.RegisterTable request) {
        List<String> parts = Names.threePart("name", request.name());
        String fullName = String.join(".", parts);
        String location = allowedLocations.check("storage_location", request.storageLocation());
        return Panache.withSession(() -> TableRow.<TableRow>findById(fullName)).flatMap(existing -> {
            if (existing != null) {
                throw ApiException.exists("name: table '" + fullName + "' is already registered at "
                        + existing.storageLocation);
            }
            return Blocking.call(() -> {
                if (!tables.exists(location)) {
                    throw ApiException.invalid("storage_location", "no Delta table at '" + location
                            + "'; register the location of an existing Delta table (its _delta_log directory's parent)");
                }
                if (tables.exists(tables.defaultLocation(parts.get(0), parts.get(1), parts.get(2)))
                        && !sameLocation(location, tables.defaultLocation(parts.get(0), parts.get(1), parts.get(2)))) {
                    throw ApiException.exists("name: a warehouse table named '" + fullName + "' already exists; "
                            + "choose another name");
                }
                return tables.columns(location);
            });
        }).flatMap(columns -> {
            TableRow row = new TableRow();
            row.fullName = fullName;
            row.storageLocation = location;
            row.kind = TableRow.EXTERNAL;
            row.owner = caller.name();
            row.createdAt = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            return Panache.withTransaction(() -> TableRow.<TableRow>findById(fullName).flatMap(raced -> {
                if (raced != null) {
                    throw ApiException.exists("name: table '" + fullName + "' is already registered");
                }
                return row.persist();
            })).onFailure(Conflicts::uniqueViolation).transform(e -> ApiException.exists("name: table '" + fullName
                    + "' was registered by a concurrent request")).map(ignored -> {
                List<ColumnView> views = new java.util.ArrayList<>();
                for (int i = 0; i < columns.size(); i++) {
                    views.add(new ColumnView(columns.get(i).name(), columns.get(i).type(), columns.get(i).nullable(),
                            i));
                }
                return new TableView(fullName, parts.get(0), parts.get(1), "EXTERNAL", location, views, row.owner);
            });
        });
    }

    /** Call inside a session. */
    public Uni<Resolved> resolve(List<String> parts) {
        String fullName = String.join(".", parts);
        return TableRow.<TableRow>findById(fullName).map(row -> row != null
                ? new Resolved(fullName, row.storageLocation, row)
                : new Resolved(fullName, tables.defaultLocation(parts.get(0), parts.get(1), parts.get(2)), null));
    }

    private static boolean sameLocation(String a, String b) {
        return a.replaceFirst("^file:", "").equals(b.replaceFirst("^file:", ""));
    }
}
