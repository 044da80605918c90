package io.tributary.registry.request;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/** The body of {@code POST /api/2.0/feature-engineering/streams} (SPEC 2.3), also stored as the stream's definition. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StreamDefinition(
        String name,
        SourceConfig sourceConfig,
        ConnectionConfig connectionConfig,
        SchemaConfig schemaConfig,
        IngestionConfig ingestionConfig) implements ApiRequest {

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SourceConfig(KafkaStreamConfig kafkaStreamConfig, DirectSourceConfig directSourceConfig) {
        public SourceConfig(KafkaStreamConfig kafkaStreamConfig) {
            this(kafkaStreamConfig, null);
        }
    }

    /** No Kafka: producers push records over the API (SPEC "Direct ingest"); it has no settings yet. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record DirectSourceConfig() {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record KafkaStreamConfig(SubscriptionMode subscriptionMode) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SubscriptionMode(String subscribe, String subscribePattern, String assign) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ConnectionConfig(String ucConnectionName, DirectMtlsConfig directMtlsConfig) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record DirectMtlsConfig(String bootstrapServers, MtlsConfig mtlsConfig) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record MtlsConfig(
            String keystoreLocation,
            SecretRef keystorePasswordRef,
            SecretRef keyPasswordRef,
            String truststoreLocation,
            SecretRef truststorePasswordRef) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SchemaConfig(DirectSchemas directSchemas, SchemaRegistryConfig schemaRegistryConfig) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record DirectSchemas(SchemaText payloadSchema, SchemaText keySchema) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SchemaText(String jsonSchema, String avroSchema, ProtoSchema protoSchema) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ProtoSchema(String schemaText, String messageName) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SchemaRegistryConfig(
            SecretRef apiSecretRef, SchemaLocator payloadSchemaLocator, SchemaLocator keySchemaLocator) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SchemaLocator(ConfluentSchema confluentSchema, String format) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ConfluentSchema(String subject) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record IngestionConfig(
            TableRef ingestionDestination, TableRef backfillSource, List<String> deduplicationColumns,
            Boolean rescueUndecodable) {

        public IngestionConfig(TableRef ingestionDestination, TableRef backfillSource,
                List<String> deduplicationColumns) {
            this(ingestionDestination, backfillSource, deduplicationColumns, null);
        }
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TableRef(String deltaTableName) {}
}
