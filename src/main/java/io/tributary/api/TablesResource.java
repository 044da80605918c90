package io.tributary.api;

import io.smallrye.mutiny.Uni;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.request.Requests;
import io.tributary.registry.service.TableService;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

@Path("/api/2.1/unity-catalog/tables")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Tables")
@NeedsRegistry
public class TablesResource {
    @Inject
    TableService tables;
    @Inject
    Caller caller;

    @GET
    @Path("/{full_name}")
    @Operation(summary = "Get a table: name, storage location, columns with types, owner")
    public Uni<TableService.TableView> get(@PathParam("full_name") String fullName) {
        return tables.get(caller.principal(), fullName);
    }

    @POST
    @Operation(summary = "Register an existing external Delta table under a three-part name")
    public Uni<TableService.TableView> register(Requests.RegisterTable body) {
        return tables.register(caller.principal(), RegistryJson.present(body));
    }
}
