package io.tributary.api;

import io.smallrye.mutiny.Uni;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.ErrorCode;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.request.StreamDefinition;
import io.tributary.registry.service.RescueService;
import io.tributary.registry.service.StreamService;
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

@Path("/api/2.0/feature-engineering/streams")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Streams")
@NeedsRegistry
public class StreamsResource {
    @Inject
    StreamService streams;
    @Inject
    Caller caller;
    @Inject
    RescueService rescue;

    @POST
    @Operation(summary = "Create a stream: validates it, creates its ingestion table and starts ingesting")
    @APIResponse(responseCode = "200", description = "The stream created",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = StreamSchemas.View.class)))
    public Uni<JsonBody> create(StreamDefinition body) {
        return streams.create(caller.principal(), RegistryJson.present(body));
    }

    @GET
    @Path("/{name}")
    @Operation(summary = "Get a stream with its full schemas, state, ingestion status and backfill status")
    @APIResponse(responseCode = "200", description = "The stream",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = StreamSchemas.View.class)))
    public Uni<JsonBody> get(@PathParam("name") String name) {
        return streams.get(caller.principal(), name);
    }

    @GET
    @Path("/{name}/history")
    @Operation(summary = "Rows the stream's table gained per minute over the last minutes (1-1440, default 60), "
            + "read from the table's Delta log")
    public Uni<Map<String, Object>> history(@PathParam("name") String name, @QueryParam("minutes") String minutes) {
        return streams.history(caller.principal(), name, integer("minutes", minutes, "use 1 to 1440"));
    }

    @GET
    @Operation(summary = "List the streams of a catalog (and schema) the caller may read, by name, in pages")
    @APIResponse(responseCode = "200", description = "One page of streams, ordered by name",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = StreamSchemas.Page.class)))
    public Uni<JsonBody> list(@QueryParam("catalog_name") String catalog,
            @QueryParam("schema_name") String schema, @QueryParam("max_results") String maxResults,
            @QueryParam("page_token") String pageToken, @QueryParam("include_schemas") String includeSchemas) {
        return streams.list(caller.principal(), catalog, schema, integer("max_results", maxResults, "use 1 to 1000"), pageToken,
                bool("include_schemas", includeSchemas));
    }

    @GET
    @Path("/{name}/rescued")
    @Operation(summary = "List a stream's rescued records: the raw bytes and decode error of records that did not "
            + "decode (streams with ingestion_config.rescue_undecodable), in topic, partition, offset order")
    public Uni<Map<String, Object>> rescued(@PathParam("name") String name,
            @QueryParam("max_results") String maxResults, @QueryParam("page_token") String pageToken) {
        return rescue.list(caller.principal(), name, integer("max_results", maxResults, "use 1 to 1000"), pageToken);
    }

    /**
     * {@code POST …/{name}/rescued:replay}. The colon verb is matched here rather than in the path template: the
     * router does not match a literal segment containing ':' (it answered 404).
     */
    @POST
    @Path("/{name}/{verb}")
    @Operation(summary = "Decode a stream's rescued records again with its current schema and fill in the values of "
            + "those that decode now, in one commit (needs MANAGE on the ingestion table)")
    public Uni<Map<String, Object>> replay(@PathParam("name") String name, @PathParam("verb") String verb) {
        if (!"rescued:replay".equals(verb)) {
            throw ApiException.notFound("no such endpoint: check the path against /q/openapi");
        }
        return rescue.replay(caller.principal(), name);
    }

    @DELETE
    @Path("/{name}")
    @Operation(summary = "Delete a stream: stops its pipeline, deletes its ingestion table, then the stream")
    public Uni<Map<String, Object>> delete(@PathParam("name") String name) {
        return streams.delete(caller.principal(), name).replaceWith(Map.of());
    }

    private static Integer integer(String field, String value, String range) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Integer.valueOf(value.trim());
        } catch (NumberFormatException e) {
            throw new ApiException(ErrorCode.INVALID_PARAMETER_VALUE, field + ": is not an integer; " + range);
        }
    }

    private static boolean bool(String field, String value) {
        if (value == null || value.isEmpty() || value.equalsIgnoreCase("false")) {
            return false;
        }
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        throw new ApiException(ErrorCode.INVALID_PARAMETER_VALUE, field + ": use true or false");
    }
}
