package io.tributary.registry.service;

import io.smallrye.mutiny.Uni;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.ConnectionSpec;
import io.tributary.registry.request.SecretRef;
import io.tributary.registry.request.StreamChecks;
import io.tributary.registry.store.ConnectionRow;
import io.tributary.registry.store.GrantRow;
import io.tributary.registry.store.GrantStore;
import io.tributary.schema.RegistryAccess;
import io.tributary.schema.SchemaSource;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;

/**
 * Resolves what a stream reads from: Kafka client properties (with decrypted passwords) and the schema sources of
 * its key and value. With a caller, the SPEC 3 checks apply (USE CONNECTION, READ on referenced scopes); without
 * one, for streams that already exist, they do not. Call inside a session.
 */
@ApplicationScoped
public class StreamSources {
    @Inject
    ConnectionService connections;
    @Inject
    SecretService secrets;
    @Inject
    GrantStore grants;

    public record Resolved(Map<String, String> kafkaProperties, SchemaSource key, SchemaSource value) {
        @Override
        public String toString() {
            return "StreamSources.Resolved[key=" + key.getClass().getSimpleName() + ", value="
                    + value.getClass().getSimpleName() + "]";
        }
    }

    public Uni<Resolved> resolve(StreamChecks.Checked checked, Principal caller) {
        if (checked.connectionName() != null) {
            return connection(checked, caller);
        }
        if (checked.mtls() == null) {
            // A direct stream without a connection: no Kafka, inline schemas only.
            return Uni.createFrom().item(new Resolved(Map.of(), checked.key().direct(), checked.value().direct()));
        }
        var m = checked.mtls().mtlsConfig();
        String base = "connection_config.direct_mtls_config.mtls_config.";
        return secret(caller, m.keystorePasswordRef(), base + "keystore_password_ref").flatMap(keystore ->
                secret(caller, m.keyPasswordRef(), base + "key_password_ref").flatMap(key ->
                        secret(caller, m.truststorePasswordRef(), base + "truststore_password_ref").map(trust ->
                                new Resolved(KafkaClientConfig.forMtls(checked.mtls(), keystore, key, trust),
                                        checked.key().direct(), checked.value().direct()))));
    }

    private Uni<Resolved> connection(StreamChecks.Checked checked, Principal caller) {
        String name = checked.connectionName();
        return ConnectionRow.<ConnectionRow>findById(name).flatMap(row -> {
            if (row == null) {
                throw ApiException.invalid("connection_config.uc_connection_name", "connection '" + name
                        + "' does not exist; create it with POST /api/2.0/connections");
            }
            Uni<Void> access = caller == null ? Uni.createFrom().voidItem()
                    : grants.privileges(GrantRow.CONNECTION, name, caller.name()).map(granted -> {
                        AccessPolicy.require(caller, row.owner, granted, Privilege.USE_CONNECTION, "connection", name);
                        return null;
                    });
            ConnectionSpec.Options options = connections.options(row);
            Map<String, String> kafka = KafkaClientConfig.forConnection(options, connections.password(row));
            if (checked.key().direct() != null && checked.value().direct() != null) {
                return access.map(v -> new Resolved(kafka, checked.key().direct(), checked.value().direct()));
            }
            if (options.schemaRegistryUrl() == null) {
                throw ApiException.invalid("schema_config.schema_registry_config", "connection '" + name
                        + "' has no schema_registry_url; set it on the connection or declare the schemas inline "
                        + "with schema_config.direct_schemas");
            }
            Uni<String> apiSecret = checked.registrySecret() != null
                    ? secret(caller, checked.registrySecret(), "schema_config.schema_registry_config.api_secret_ref")
                    : secrets.read(options.schemaRegistryApiSecret()).onFailure(java.util.NoSuchElementException.class)
                            .transform(e -> ApiException.invalid("connection_config.uc_connection_name",
                                    "connection '" + name + "' references a schema_registry_api_secret that no longer "
                                            + "exists; put the secret again or recreate the connection"));
            return access.flatMap(v -> apiSecret).map(secret -> {
                RegistryAccess registry = new RegistryAccess(options.schemaRegistryUrl(),
                        options.schemaRegistryApiKey(), secret);
                return new Resolved(kafka, source(checked.key(), registry), source(checked.value(), registry));
            });
        });
    }

    private Uni<String> secret(Principal caller, SecretRef ref, String field) {
        return caller == null ? secrets.read(ref) : secrets.readReferenced(caller, ref, field);
    }

    private static SchemaSource source(StreamChecks.Side side, RegistryAccess registry) {
        return side.direct() != null ? side.direct()
                : new SchemaSource.Registry(side.subject(), side.format(), registry);
    }
}
