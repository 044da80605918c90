package io.tributary.registry.service;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.Names;
import io.tributary.registry.request.Requests;
import io.tributary.registry.request.SecretRef;
import io.tributary.registry.store.Conflicts;
import io.tributary.registry.store.ScopeAclRow;
import io.tributary.registry.store.SecretRow;
import io.tributary.registry.store.SecretScopeRow;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import io.tributary.security.SecretCipher;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Secret scopes, their ACLs and write-only secret values (SPEC 2.1). */
@ApplicationScoped
public class SecretService {
    private static final Set<String> PERMISSIONS = Set.of("READ", "WRITE", "MANAGE");

    @Inject
    SecretCipher cipher;

    public record SecretKeyInfo(String key, @JsonProperty("last_updated_timestamp") long lastUpdatedTimestamp) {}

    public Uni<Void> createScope(Principal caller, Requests.CreateScope request) {
        String scope = Names.onePart("scope", request.scope());
        return Panache.withTransaction(() -> SecretScopeRow.<SecretScopeRow>findById(scope).flatMap(existing -> {
            if (existing != null) {
                throw ApiException.exists("scope: secret scope '" + scope + "' already exists; choose another "
                        + "name or put secrets into the existing scope");
            }
            SecretScopeRow row = new SecretScopeRow();
            row.name = scope;
            row.owner = caller.name();
            row.createdAt = Instant.now();
            return row.persist().replaceWithVoid();
        })).onFailure(Conflicts::uniqueViolation).transform(e -> ApiException.exists("scope: secret scope '" + scope
                + "' was created by a concurrent request; put secrets into it or choose another name"));
    }

    public Uni<Void> put(Principal caller, Requests.PutSecret request) {
        String scope = Names.onePart("scope", request.scope());
        String key = Names.onePart("key", request.key());
        if (request.stringValue() == null) {
            throw ApiException.missing("string_value");
        }
        byte[] sealed = cipher.encrypt(request.stringValue(), SecretRow.associatedData(scope, key));
        // One statement, so that two puts of one key at once both succeed (the last one's value stays) where a read
        // and an insert would let one of them fail on secrets_unique.
        return Panache.withTransaction(() -> scopeFor(caller, scope, Privilege.WRITE)
                .flatMap(s -> Panache.getSession()).flatMap(session -> session.createNativeQuery("insert into secrets "
                        + "(scope, secret_key, value, updated_at) values (?1, ?2, ?3, ?4) on conflict (scope, "
                        + "secret_key) do update set value = excluded.value, updated_at = excluded.updated_at")
                        .setParameter(1, scope).setParameter(2, key).setParameter(3, sealed)
                        .setParameter(4, Instant.now()).executeUpdate())
                .replaceWithVoid());
    }

    public Uni<Void> delete(Principal caller, Requests.DeleteSecret request) {
        String scope = Names.onePart("scope", request.scope());
        String key = Names.onePart("key", request.key());
        return Panache.withTransaction(() -> scopeFor(caller, scope, Privilege.WRITE)
                .flatMap(s -> SecretRow.delete("scope = ?1 and key = ?2", scope, key))
                .map(n -> {
                    if (n == 0) {
                        throw ApiException.notFound("key: secret '" + key + "' does not exist in scope '" + scope
                                + "'; list the scope's keys with GET /api/2.0/secrets/list?scope=" + scope);
                    }
                    return null;
                }));
    }

    public Uni<List<SecretKeyInfo>> list(Principal caller, String scopeParam) {
        String scope = Names.onePart("scope", scopeParam);
        return Panache.withSession(() -> scopeFor(caller, scope, Privilege.READ)
                .flatMap(s -> SecretRow.<SecretRow>list("scope = ?1 order by key", scope))
                .map(rows -> rows.stream()
                        .map(r -> new SecretKeyInfo(r.key, r.updatedAt.toEpochMilli())).toList()));
    }

    public Uni<Void> putAcl(Principal caller, Requests.PutAcl request) {
        String scope = Names.onePart("scope", request.scope());
        String principal = Names.principal("principal", request.principal());
        String permission = request.permission() == null ? null : request.permission().toUpperCase(Locale.ROOT);
        if (permission == null || !PERMISSIONS.contains(permission)) {
            throw ApiException.invalid("permission", "must be one of READ, WRITE, MANAGE");
        }
        return Panache.withTransaction(() -> scopeFor(caller, scope, Privilege.MANAGE)
                .flatMap(s -> ScopeAclRow.<ScopeAclRow>find("scope = ?1 and principal = ?2", scope,
                        principal).<ScopeAclRow>firstResult())
                .flatMap(existing -> {
                    ScopeAclRow row = existing != null ? existing : new ScopeAclRow();
                    row.scope = scope;
                    row.principal = principal;
                    row.permission = permission;
                    return row.persist().replaceWithVoid();
                }));
    }

    /**
     * The decrypted value of a secret the caller may READ, for a request that references it. Call inside a session.
     *
     * @param field the request path of the reference, e.g. {@code connection_config.direct_mtls_config...}
     */
    public Uni<String> readReferenced(Principal caller, SecretRef ref, String field) {
        if (ref == null) {
            return Uni.createFrom().nullItem();
        }
        String scope = Names.onePart(field + ".scope", ref.scope());
        String key = Names.onePart(field + ".key", ref.key());
        return SecretScopeRow.<SecretScopeRow>findById(scope).flatMap(s -> {
            if (s == null) {
                throw ApiException.invalid(field + ".scope", "secret scope '" + scope + "' does not exist; create "
                        + "it with POST /api/2.0/secrets/scopes/create");
            }
            return permissionOf(scope, caller.name()).flatMap(granted -> {
                AccessPolicy.require(caller, s.owner, granted, Privilege.READ, "secret scope", scope);
                return SecretRow.<SecretRow>find("scope = ?1 and key = ?2", scope, key).<SecretRow>firstResult();
            });
        }).map(row -> {
            if (row == null) {
                throw ApiException.invalid(field + ".key", "secret '" + key + "' does not exist in scope '"
                        + scope + "'; put it with POST /api/2.0/secrets/put");
            }
            return cipher.decrypt(row.value, SecretRow.associatedData(row.scope, row.key));
        });
    }

    /**
     * The decrypted value of a stored secret, without an access check: for pipelines of streams already created and
     * for a connection's own secret. Fails with NoSuchElementException when the secret was deleted.
     */
    public Uni<String> read(SecretRef ref) {
        if (ref == null) {
            return Uni.createFrom().nullItem();
        }
        String scope = Names.lower(ref.scope());
        String key = Names.lower(ref.key());
        return SecretRow.<SecretRow>find("scope = ?1 and key = ?2", scope, key).<SecretRow>firstResult().map(row -> {
            if (row == null) {
                throw new java.util.NoSuchElementException("secret " + scope + "/" + key + " was deleted");
            }
            return cipher.decrypt(row.value, SecretRow.associatedData(row.scope, row.key));
        });
    }

    private Uni<SecretScopeRow> scopeFor(Principal caller, String scope, Privilege needed) {
        return SecretScopeRow.<SecretScopeRow>findById(scope).flatMap(s -> {
            if (s == null) {
                throw ApiException.notFound("scope: secret scope '" + scope + "' does not exist; create it with "
                        + "POST /api/2.0/secrets/scopes/create");
            }
            return permissionOf(scope, caller.name()).map(granted -> {
                AccessPolicy.require(caller, s.owner, granted, needed, "secret scope", scope);
                return s;
            });
        });
    }

    private Uni<Set<Privilege>> permissionOf(String scope, String principal) {
        return ScopeAclRow.<ScopeAclRow>find("scope = ?1 and principal = ?2", scope, principal).<ScopeAclRow>firstResult()
                .map(acl -> acl == null ? Set.<Privilege>of()
                        : Privilege.fromApiName(acl.permission).map(Set::of).orElse(Set.of()));
    }
}
