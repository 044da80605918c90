package io.tributary.registry.request;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/** The body of {@code POST /api/2.0/connections} (SPEC 2.2). */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ConnectionSpec(String name, String connectionType, Options options, String comment)
        implements ApiRequest {

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Options(
            String bootstrapServers,
            String credential,
            String saslMechanism,
            String user,
            String password,
            String securityProtocol,
            String schemaRegistryUrl,
            String schemaRegistryApiKey,
            SecretRef schemaRegistryApiSecret) {

        public Options withoutPassword() {
            return new Options(bootstrapServers, credential, saslMechanism, user, null, securityProtocol,
                    schemaRegistryUrl, schemaRegistryApiKey, schemaRegistryApiSecret);
        }

        @Override
        public String toString() {
            return "Options[bootstrap_servers=" + bootstrapServers + "]";
        }
    }
}
