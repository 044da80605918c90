package io.tributary.registry.service;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.ConnectionChecks;
import io.tributary.registry.request.ConnectionSpec;
import io.tributary.registry.request.ErrorCode;
import io.tributary.registry.request.Names;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.store.Conflicts;
import io.tributary.registry.store.ConnectionRow;
import io.tributary.registry.store.GrantRow;
import io.tributary.registry.store.GrantStore;
import io.tributary.registry.store.StreamRow;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import io.tributary.security.SecretCipher;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** Kafka connections (SPEC 2.2). The password is stored encrypted and never returned. */
@ApplicationScoped
public class ConnectionService {

    @Inject
    SecretCipher cipher;
    @Inject
    SecretService secrets;
    @Inject
    GrantStore grants;

    /** A connection as the API shows it: never the password. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ConnectionView(String name, String connectionType, ConnectionSpec.Options options, String comment,
            String owner, String createdAt) {}

    public Uni<ConnectionView> create(Principal caller, ConnectionSpec spec) {
        String name = Names.onePart("name", spec.name());
        if (spec.connectionType() == null) {
            throw ApiException.missing("connection_type");
        }
        if (!spec.connectionType().equalsIgnoreCase("KAFKA")) {
            throw ApiException.invalid("connection_type", "'" + Names.shorten(spec.connectionType())
                    + "' is not supported; use KAFKA");
        }
        ConnectionSpec.Options options = ConnectionChecks.normalize(spec.options());
        ConnectionRow row = new ConnectionRow();
        row.name = name;
        row.connectionType = "KAFKA";
        row.options = RegistryJson.write(new StoredOptions(options.withoutPassword(), spec.comment()));
        row.password = options.password() == null ? null
                : cipher.encrypt(options.password(), ConnectionRow.associatedData(name));
        row.owner = caller.name();
        row.createdAt = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        return Panache.withTransaction(() -> secrets
                .readReferenced(caller, options.schemaRegistryApiSecret(), "options.schema_registry_api_secret")
                .flatMap(ignored -> ConnectionRow.<ConnectionRow>findById(name))
                .flatMap(existing -> {
                    if (existing != null) {
                        throw ApiException.exists("name: connection '" + name + "' already exists; choose "
                                + "another name or delete it first");
                    }
                    return row.persist();
                })
                .map(ignored -> view(row)))
                .onFailure(Conflicts::uniqueViolation).transform(e -> ApiException.exists("name: connection '"
                        + name + "' was created by a concurrent request; choose another name or delete it first"));
    }

    public Uni<ConnectionView> get(Principal caller, String nameParam) {
        String name = Names.onePart("name", nameParam);
        return Panache.withSession(() -> find(name).flatMap(row -> grants
                .privileges(GrantRow.CONNECTION, name, caller.name()).map(granted -> {
                    if (!AccessPolicy.allows(caller, row.owner, granted, Privilege.USE_CONNECTION)
                            && !AccessPolicy.allows(caller, row.owner, granted, Privilege.MANAGE)) {
                        AccessPolicy.require(caller, row.owner, granted, Privilege.USE_CONNECTION, "connection", name);
                    }
                    return view(row);
                })));
    }

    /** The connections the caller owns or holds a grant on (all of them for an admin). */
    public Uni<List<ConnectionView>> list(Principal caller) {
        return Panache.withSession(() -> (caller.admin()
                ? ConnectionRow.<ConnectionRow>list("order by name")
                : ConnectionRow.<ConnectionRow>list("from ConnectionRow c where c.owner = ?1 or exists (select 1 from GrantRow g "
                        + "where g.securableType = ?2 and g.securableName = c.name and g.principal = ?1) "
                        + "order by c.name", caller.name(),
                        GrantRow.CONNECTION)).map(list -> list.stream().map(this::view).toList()));
    }

    public Uni<Void> delete(Principal caller, String nameParam) {
        String name = Names.onePart("name", nameParam);
        return Panache.withTransaction(() -> find(name)
                .flatMap(row -> grants.privileges(GrantRow.CONNECTION, name, caller.name()).flatMap(granted -> {
                    AccessPolicy.require(caller, row.owner, granted, Privilege.MANAGE, "connection", name);
                    return StreamRow.count("connectionName", name);
                }).flatMap(users -> {
                    if (users > 0) {
                        throw new ApiException(ErrorCode.RESOURCE_CONFLICT, "name: connection '" + name
                                + "' is used by " + users + " stream(s); delete those streams first");
                    }
                    // A statement rather than the entity's delete: of two deletes at once, the second then deletes
                    // nothing and hears 404. (Hibernate Reactive's entity delete fails on that race, and under load
                    // can go on from another event loop than the session's: quarkusio/quarkus#41945.)
                    return grants.removeAll(GrantRow.CONNECTION, name)
                            .flatMap(v -> ConnectionRow.delete("name", name));
                }).map(deleted -> {
                    if (deleted == 0) {
                        throw ApiException.notFound("connection '" + name + "' was deleted by a concurrent request");
                    }
                    return null;
                })));
    }

    /** Call inside a session. */
    public Uni<ConnectionRow> find(String name) {
        return ConnectionRow.<ConnectionRow>findById(name).map(row -> {
            if (row == null) {
                throw ApiException.notFound("connection '" + name + "' does not exist; create it with "
                        + "POST /api/2.0/connections");
            }
            return row;
        });
    }

    public ConnectionSpec.Options options(ConnectionRow row) {
        return RegistryJson.read(row.options, StoredOptions.class).options();
    }

    public String password(ConnectionRow row) {
        return row.password == null ? null : cipher.decrypt(row.password, ConnectionRow.associatedData(row.name));
    }

    private ConnectionView view(ConnectionRow row) {
        StoredOptions stored = RegistryJson.read(row.options, StoredOptions.class);
        return new ConnectionView(row.name, row.connectionType, stored.options(), stored.comment(), row.owner,
                row.createdAt.toString());
    }

    /** What the options column holds. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record StoredOptions(ConnectionSpec.Options options, String comment) {}
}
