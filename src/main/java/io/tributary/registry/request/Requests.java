package io.tributary.registry.request;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/** The small request bodies of SPEC 2.1 and 2.4. */
public final class Requests {
    private Requests() {}

    public record CreateScope(String scope) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record PutSecret(String scope, String key, String stringValue) {
        @Override
        public String toString() {
            return "PutSecret[" + scope + "/" + key + "]";
        }
    }

    public record DeleteSecret(String scope, String key) {}

    public record PutAcl(String scope, String principal, String permission) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record RegisterTable(String name, String storageLocation) {}

    public record UpdatePermissions(List<Change> changes) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Change(String principal, List<String> add, List<String> remove) {}
}
