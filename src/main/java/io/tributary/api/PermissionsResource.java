package io.tributary.api;

import io.smallrye.mutiny.Uni;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.request.Requests;
import io.tributary.registry.service.PermissionService;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

@Path("/api/2.1/unity-catalog/permissions")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Permissions")
@NeedsRegistry
public class PermissionsResource {
    @Inject
    PermissionService permissions;
    @Inject
    Caller caller;

    @GET
    @Path("/{securable_type}/{name}")
    @Operation(summary = "Get the grants on a table or connection")
    public Uni<PermissionService.Assignments> get(@PathParam("securable_type") String type,
            @PathParam("name") String name) {
        return permissions.get(caller.principal(), type, name);
    }

    @PATCH
    @Path("/{securable_type}/{name}")
    @Operation(summary = "Add or remove grants on a table or connection (needs MANAGE)")
    public Uni<PermissionService.Assignments> update(@PathParam("securable_type") String type,
            @PathParam("name") String name, Requests.UpdatePermissions body) {
        return permissions.update(caller.principal(), type, name,
                RegistryJson.present(body));
    }
}
