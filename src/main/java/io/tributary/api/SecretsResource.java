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
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
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
    @RequestBody(content = @Content(schema = @Schema(implementation = Requests.CreateScope.class)))
    public Uni<Map<String, Object>> createScope(String body) {
        return secrets.createScope(caller.principal(), RegistryJson.parse(body, Requests.CreateScope.class))
                .replaceWith(Map.of());
    }

    @POST
    @Path("/put")
    @Operation(summary = "Store a secret value (write-only, encrypted at rest)")
    @RequestBody(content = @Content(schema = @Schema(implementation = Requests.PutSecret.class)))
    public Uni<Map<String, Object>> put(String body) {
        return secrets.put(caller.principal(), RegistryJson.parse(body, Requests.PutSecret.class))
                .replaceWith(Map.of());
    }

    @POST
    @Path("/delete")
    @Operation(summary = "Delete a secret")
    @RequestBody(content = @Content(schema = @Schema(implementation = Requests.DeleteSecret.class)))
    public Uni<Map<String, Object>> delete(String body) {
        return secrets.delete(caller.principal(), RegistryJson.parse(body, Requests.DeleteSecret.class))
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
    @RequestBody(content = @Content(schema = @Schema(implementation = Requests.PutAcl.class)))
    public Uni<Map<String, Object>> putAcl(String body) {
        return secrets.putAcl(caller.principal(), RegistryJson.parse(body, Requests.PutAcl.class))
                .replaceWith(Map.of());
    }
}
