package io.tributary.registry.request;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/** The small request bodies of SPEC 2.1 and 2.4. */
public final class Requests {
    private Requests() {}

    public record CreateScope(String scope) implements ApiRequest {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record PutSecret(String scope, String key, String stringValue) implements ApiRequest {
        @Override
        public String toString() {
            return "PutSecret[" + scope + "/" + key + "]";
        }
    }

    public record DeleteSecret(String scope, String key) implements ApiRequest {}

    public record PutAcl(String scope, String principal, String permission) implements ApiRequest {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record RegisterTable(String name, String storageLocation) implements ApiRequest {}

    public record UpdatePermissions(List<Change> changes) implements ApiRequest {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Change(String principal, List<String> add, List<String> remove) {}
}
