package io.tributary.api;

import io.smallrye.mutiny.Uni;
import io.tributary.registry.request.ConnectionSpec;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.service.ConnectionService;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

@Path("/api/2.0/connections")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Connections")
@NeedsRegistry
public class ConnectionsResource {
    @Inject
    ConnectionService connections;
    @Inject
    Caller caller;

    @POST
    @Operation(summary = "Create a Kafka connection; the password is stored encrypted and never returned")
    public Uni<ConnectionService.ConnectionView> create(ConnectionSpec body) {
        return connections.create(caller.principal(), RegistryJson.present(body));
    }

    @GET
    @Path("/{name}")
    @Operation(summary = "Get a connection (without secrets)")
    public Uni<ConnectionService.ConnectionView> get(@PathParam("name") String name) {
        return connections.get(caller.principal(), name);
    }

    @GET
    @Operation(summary = "List the connections the caller owns or holds a grant on")
    public Uni<Map<String, List<ConnectionService.ConnectionView>>> list() {
        return connections.list(caller.principal()).map(list -> Map.of("connections", list));
    }

    @DELETE
    @Path("/{name}")
    @Operation(summary = "Delete a connection that no stream uses")
    public Uni<Map<String, Object>> delete(@PathParam("name") String name) {
        return connections.delete(caller.principal(), name).replaceWith(Map.of());
    }
}
