package io.tributary.registry.service;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.tributary.registry.request.ConnectionSpec;
import io.tributary.registry.request.Requests;
import io.tributary.registry.request.SecretRef;
import io.tributary.registry.request.StreamDefinition;

/**
 * Request bodies are bound by {@link io.tributary.registry.request.RegistryJson}'s own strict mapper (through
 * {@code api.StrictJsonReader}), which Quarkus cannot see; the bound and stored types are registered here for native
 * images.
 */
@RegisterForReflection(targets = {
    StreamDefinition.class, StreamDefinition.SourceConfig.class, StreamDefinition.KafkaStreamConfig.class,
    StreamDefinition.SubscriptionMode.class, StreamDefinition.ConnectionConfig.class,
    StreamDefinition.DirectMtlsConfig.class, StreamDefinition.MtlsConfig.class, StreamDefinition.SchemaConfig.class,
    StreamDefinition.DirectSchemas.class, StreamDefinition.SchemaText.class, StreamDefinition.ProtoSchema.class,
    StreamDefinition.SchemaRegistryConfig.class, StreamDefinition.SchemaLocator.class,
    StreamDefinition.ConfluentSchema.class, StreamDefinition.IngestionConfig.class, StreamDefinition.TableRef.class,
    SecretRef.class, ConnectionSpec.class, ConnectionSpec.Options.class, ConnectionService.StoredOptions.class,
    Requests.CreateScope.class, Requests.PutSecret.class, Requests.DeleteSecret.class, Requests.PutAcl.class,
    Requests.RegisterTable.class, Requests.UpdatePermissions.class, Requests.Change.class})
final class JsonModelReflection {
    private JsonModelReflection() {}
}
