package io.tributary.registry.service;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.delta.Tables;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.Names;
import io.tributary.registry.request.Requests;
import io.tributary.registry.store.ConnectionRow;
import io.tributary.registry.store.GrantRow;
import io.tributary.registry.store.GrantStore;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** {@code GET|PATCH /api/2.1/unity-catalog/permissions/{table|connection}/{name}} (SPEC 2.4). */
@ApplicationScoped
public class PermissionService {
    @Inject
    jakarta.enterprise.event.Event<GrantsChanged> grantsChanged;

    @Inject
    GrantStore grants;
    @Inject
    TableService tableService;
    @Inject
    Tables tables;

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Assignment(String principal, List<String> privileges) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Assignments(List<Assignment> privilegeAssignments) {}

    private record Securable(String type, String name, String owner) {}

    /** Anyone holding a privilege on the securable (or its owner, or an admin) may see its grants. */
    public Uni<Assignments> get(Principal caller, String securableType, String name) {
        return securable(securableType, name).flatMap(s -> Panache.withSession(() -> grants
                .privileges(s.type(), s.name(), caller.name())
                .flatMap(granted -> {
                    if (granted.isEmpty()) {
                        AccessPolicy.require(caller, s.owner(), granted, Privilege.MANAGE, kind(s.type()), s.name());
                    }
                    return grants.assignments(s.type(), s.name());
                })).map(PermissionService::toAssignments));
    }

    public Uni<Assignments> update(Principal caller, String securableType, String name,
            Requests.UpdatePermissions request) {
        String type = type(securableType);
        List<Privilege> allowed = GrantStore.allowedOn(type);
        if (request.changes() == null) {
            throw ApiException.missing("changes");
        }
        record Planned(String principal, List<Privilege> add, List<Privilege> remove) {}
        List<Planned> planned = new ArrayList<>();
        for (int i = 0; i < request.changes().size(); i++) {
            Requests.Change c = request.changes().get(i);
            String field = "changes[" + i + "]";
            if (c == null) {
                throw ApiException.invalid(field, "must be an object {\"principal\", \"add\", \"remove\"}");
            }
            planned.add(new Planned(Names.principal(field + ".principal", c.principal()), privileges(field + ".add", c.add(), allowed, type),
                    privileges(field + ".remove", c.remove(), allowed, type)));
        }
        return securable(securableType, name).flatMap(s -> Panache.withTransaction(() -> grants
                .privileges(s.type(), s.name(), caller.name())
                .flatMap(granted -> {
                    AccessPolicy.require(caller, s.owner(), granted, Privilege.MANAGE, kind(s.type()), s.name());
                    Uni<Void> chain = Uni.createFrom().voidItem();
                    for (Planned p : planned) {
                        for (Privilege add : p.add()) {
                            chain = chain.flatMap(v -> grants.add(s.type(), s.name(), p.principal(), add));
                        }
                        for (Privilege remove : p.remove()) {
                            chain = chain.flatMap(v -> grants.remove(s.type(), s.name(), p.principal(), remove));
                        }
                    }
                    return chain.flatMap(v -> grants.assignments(s.type(), s.name()));
                })).invoke(committed -> grantsChanged.fire(new GrantsChanged(s.type(), s.name())))
                .map(PermissionService::toAssignments));
    }

    private Uni<Securable> securable(String securableType, String nameParam) {
        String type = type(securableType);
        if (GrantRow.CONNECTION.equals(type)) {
            String name = Names.onePart("name", nameParam);
            return Panache.withSession(() -> ConnectionRow.<ConnectionRow>findById(name)).map(row -> {
                if (row == null) {
                    throw ApiException.notFound("connection '" + name + "' does not exist");
                }
                return new Securable(type, name, row.owner);
            });
        }
        List<String> parts = Names.threePart("name", nameParam);
        return Panache.withSession(() -> tableService.resolve(parts)).flatMap(r -> {
            if (r.row() != null) {
                return Uni.createFrom().item(new Securable(type, r.fullName(), r.owner()));
            }
            return Blocking.call(() -> {
                if (!tables.exists(r.location())) {
                    throw ApiException.notFound("table '" + r.fullName() + "' does not exist");
                }
                return new Securable(type, r.fullName(), null);
            });
        });
    }

    private static String type(String securableType) {
        String t = securableType == null ? "" : securableType.toLowerCase(Locale.ROOT);
        return switch (t) {
            case "table" -> GrantRow.TABLE;
            case "connection" -> GrantRow.CONNECTION;
            default -> throw ApiException.invalid("securable_type", "'" + Names.shorten(t)
                    + "' is not supported; use table or connection");
        };
    }

    private static String kind(String type) {
        return GrantRow.TABLE.equals(type) ? "table" : "connection";
    }

    private static List<Privilege> privileges(String field, List<String> names, List<Privilege> allowed, String type) {
        List<Privilege> result = new ArrayList<>();
        if (names == null) {
            return result;
        }
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            Privilege p = n == null ? null : Privilege.fromApiName(n.trim()).filter(allowed::contains).orElse(null);
            if (p == null) {
                throw ApiException.invalid(field + "[" + i + "]", "'" + Names.shorten(String.valueOf(n))
                        + "' is not a privilege on a " + kind(type) + "; use one of "
                        + String.join(", ", allowed.stream().map(Privilege::apiName).toList()));
            }
            result.add(p);
        }
        return result;
    }

    private static Assignments toAssignments(Map<String, Set<String>> byPrincipal) {
        List<Assignment> list = new ArrayList<>();
        byPrincipal.forEach((principal, privileges) -> list.add(new Assignment(principal, List.copyOf(privileges))));
        return new Assignments(list);
    }
}
