package io.tributary.api;

import io.smallrye.mutiny.Uni;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.request.Requests;
import io.tributary.registry.service.SecretService;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

@Path("/api/2.0/secrets")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Secrets")
@NeedsRegistry
public class SecretsResource {
    @Inject
    SecretService secrets;
    @Inject
    Caller caller;

    @POST
    @Path("/scopes/create")
    @Operation(summary = "Create a secret scope; the caller owns it")
    public Uni<Map<String, Object>> createScope(Requests.CreateScope body) {
        return secrets.createScope(caller.principal(), RegistryJson.present(body))
                .replaceWith(Map.of());
    }

    @POST
    @Path("/put")
    @Operation(summary = "Store a secret value (write-only, encrypted at rest)")
    public Uni<Map<String, Object>> put(Requests.PutSecret body) {
        return secrets.put(caller.principal(), RegistryJson.present(body))
                .replaceWith(Map.of());
    }

    @POST
    @Path("/delete")
    @Operation(summary = "Delete a secret")
    public Uni<Map<String, Object>> delete(Requests.DeleteSecret body) {
        return secrets.delete(caller.principal(), RegistryJson.present(body))
                .replaceWith(Map.of());
    }

    @GET
    @Path("/list")
    @Operation(summary = "List the keys of a scope (never the values)")
    public Uni<Map<String, List<SecretService.SecretKeyInfo>>> list(@QueryParam("scope") String scope) {
        return secrets.list(caller.principal(), scope).map(keys -> Map.of("secrets", keys));
    }

    @POST
    @Path("/acls/put")
    @Operation(summary = "Grant a principal READ, WRITE or MANAGE on a scope")
    public Uni<Map<String, Object>> putAcl(Requests.PutAcl body) {
        return secrets.putAcl(caller.principal(), RegistryJson.present(body))
                .replaceWith(Map.of());
    }
}
