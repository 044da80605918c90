package io.tributary.api;

import io.smallrye.mutiny.Uni;
import io.tributary.registry.features.FeatureViewRequests;
import io.tributary.registry.features.FeatureViewService;
import io.tributary.registry.request.RegistryJson;
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
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Streaming feature views (SPEC "Feature views"). */
@Path("/api/2.0/feature-engineering/feature-views")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Feature views")
@NeedsRegistry
public class FeatureViewsResource {
    /** What a lookup answers (written by the service as JSON; this describes it for the OpenAPI document). */
    public record LookupAnswer(List<Map<String, Object>> results) {}

    @Inject
    FeatureViewService views;
    @Inject
    Caller caller;

    @POST
    @Operation(summary = "Create a feature view: windowed aggregations over a stream or table, offline and online")
    public Uni<FeatureViewService.FeatureView> create(FeatureViewRequests.Create body) {
        return views.create(caller.principal(), RegistryJson.present(body));
    }

    @GET
    @Path("/{name}")
    @Operation(summary = "Get a feature view with its materialization_status")
    public Uni<FeatureViewService.FeatureView> get(@PathParam("name") String name) {
        return views.get(caller.principal(), name);
    }

    @GET
    @Operation(summary = "List the feature views whose source the caller may read")
    public Uni<FeatureViewService.FeatureViewList> list(@QueryParam("catalog_name") String catalog,
            @QueryParam("schema_name") String schema) {
        return views.list(caller.principal(), catalog, schema);
    }

    @DELETE
    @Path("/{name}")
    @Operation(summary = "Delete a feature view, its online state and its offline table")
    public Uni<Map<String, Object>> delete(@PathParam("name") String name) {
        return views.delete(caller.principal(), name);
    }

    @POST
    @Path("/{name}/lookup")
    @Operation(summary = "Features of 1 to 1000 entities, as of now or of each key's as_of; null for a missing one")
    @APIResponse(responseCode = "200", description = "The features, in key order",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = LookupAnswer.class)))
    public Uni<JsonBody> lookup(@PathParam("name") String name, FeatureViewRequests.Lookup body) {
        return views.lookup(caller.principal(), name, RegistryJson.present(body));
    }

    @POST
    @Path("/{name}/point-in-time")
    @Operation(summary = "Write the features as of each (entity, time) row of a spine table to a new Delta table")
    public Uni<FeatureViewService.PointInTimeResult> pointInTime(@PathParam("name") String name,
            FeatureViewRequests.PointInTime body) {
        return views.pointInTime(caller.principal(), name, RegistryJson.present(body));
    }
}
