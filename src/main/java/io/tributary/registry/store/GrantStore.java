package io.tributary.registry.store;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.security.Privilege;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Grants of SELECT, MANAGE and USE CONNECTION on tables and connections. Call inside a session. */
@ApplicationScoped
public class GrantStore {

    public Uni<Set<Privilege>> privileges(String type, String name, String principal) {
        return GrantRow.<GrantRow>list("securableType = ?1 and securableName = ?2 and principal = ?3", type, name,
                principal).map(rows -> {
                    Set<Privilege> result = EnumSet.noneOf(Privilege.class);
                    rows.forEach(r -> Privilege.fromApiName(r.privilege).ifPresent(result::add));
                    return result;
                });
    }

    /** principal -> privileges, both sorted, for the permissions API. */
    public Uni<Map<String, Set<String>>> assignments(String type, String name) {
        return GrantRow.<GrantRow>list("securableType = ?1 and securableName = ?2", type, name).map(rows -> {
            Map<String, Set<String>> result = new TreeMap<>();
            rows.forEach(r -> result.computeIfAbsent(r.principal, k -> new TreeSet<>()).add(r.privilege));
            return new LinkedHashMap<>(result);
        });
    }

    /**
     * Grants a privilege; granting one already held changes nothing. One statement rather than a read and an insert:
     * two requests granting the same privilege at once must both succeed, not one of them fail on grants_unique.
     * Call inside a transaction.
     */
    public Uni<Void> add(String type, String name, String principal, Privilege privilege) {
        return Panache.getSession().flatMap(session -> session.createNativeQuery("insert into grants (securable_type, "
                + "securable_name, principal, privilege) values (?1, ?2, ?3, ?4) on conflict do nothing")
                .setParameter(1, type).setParameter(2, name).setParameter(3, principal)
                .setParameter(4, privilege.apiName()).executeUpdate()).replaceWithVoid();
    }

    public Uni<Void> remove(String type, String name, String principal, Privilege privilege) {
        return GrantRow.delete("securableType = ?1 and securableName = ?2 and principal = ?3 and privilege = ?4", type,
                name, principal, privilege.apiName()).replaceWithVoid();
    }

    public Uni<Void> removeAll(String type, String name) {
        return GrantRow.delete("securableType = ?1 and securableName = ?2", type, name).replaceWithVoid();
    }

    public static List<Privilege> allowedOn(String type) {
        return GrantRow.TABLE.equals(type) ? List.of(Privilege.SELECT, Privilege.MODIFY, Privilege.MANAGE)
                : List.of(Privilege.USE_CONNECTION, Privilege.MANAGE);
    }
}
