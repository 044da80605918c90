package io.tributary.api;

import io.smallrye.mutiny.Uni;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.online.SyncedTableRequests;
import io.tributary.registry.online.SyncedTableService;
import io.tributary.registry.view.JsonBody;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Synced tables in the shape of Databricks' (SPEC "Synced tables"). */
@Path("/api/2.0/database/synced_tables")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Synced tables")
@NeedsRegistry
public class SyncedTablesResource {
    /** What a lookup answers (written by the service as JSON; this describes it for the OpenAPI document). */
    public record LookupAnswer(java.util.List<Map<String, Object>> rows) {}

    @Inject
    SyncedTableService synced;
    @Inject
    Caller caller;

    @POST
    @Operation(summary = "Create a synced table: a PostgreSQL table kept in step with a Delta table")
    public Uni<SyncedTableService.SyncedTableView> create(SyncedTableRequests.Create body) {
        return synced.create(caller.principal(), RegistryJson.present(body));
    }

    @GET
    @Path("/{name}")
    @Operation(summary = "Get a synced table with its data_synchronization_status")
    public Uni<SyncedTableService.SyncedTableView> get(@PathParam("name") String name) {
        return synced.get(caller.principal(), name);
    }

    @GET
    @Operation(summary = "List the synced tables whose source the caller may read")
    public Uni<SyncedTableService.SyncedTableList> list(@QueryParam("catalog_name") String catalog,
            @QueryParam("schema_name") String schema) {
        return synced.list(caller.principal(), catalog, schema);
    }

    @DELETE
    @Path("/{name}")
    @Operation(summary = "Delete a synced table and drop its PostgreSQL table")
    public Uni<Map<String, Object>> delete(@PathParam("name") String name) {
        return synced.delete(caller.principal(), name);
    }

    @POST
    @Path("/{name}/sync")
    @Operation(summary = "Sync now (SNAPSHOT: rebuild; TRIGGERED and CONTINUOUS: bring up to date)")
    public Uni<SyncedTableService.SyncedTableView> sync(@PathParam("name") String name) {
        return synced.sync(caller.principal(), name);
    }

    @POST
    @Path("/{name}/lookup")
    @Operation(summary = "Look up 1 to 1000 keys; rows in key order, null for a missing key")
    @APIResponse(responseCode = "200", description = "The rows, in key order",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = LookupAnswer.class)))
    public Uni<JsonBody> lookup(@PathParam("name") String name, SyncedTableRequests.Lookup body) {
        return synced.lookup(caller.principal(), name, RegistryJson.present(body));
    }
}
