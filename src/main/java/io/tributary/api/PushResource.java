package io.tributary.api;

import io.smallrye.mutiny.Uni;
import io.tributary.registry.service.DirectIngest;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code POST …/streams/{name}/records}: direct ingest (SPEC "Direct ingest"); the work is {@link DirectIngest}'s. */
@Path("/api/2.0/feature-engineering/streams/{name}/records")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "Streams")
@NeedsRegistry
public class PushResource {
    @Inject
    DirectIngest direct;
    @Inject
    Caller caller;

    @POST
    // Any type: the body's reader decides (PushBodies), so curl's default form type is read as JSON, as the rest of
    // the API reads it, and an unknown type is a 400 naming Content-Type rather than a bare 415.
    @Consumes(MediaType.WILDCARD)
    @Operation(summary = "Push a producer's batch of records into a direct stream's table; answered once committed, "
            + "exactly once per (producer_id, sequence); needs MODIFY on the ingestion table")
    public Uni<Map<String, Object>> push(@PathParam("name") String name,
            @HeaderParam("Content-Type") String contentType, byte[] body) {
        String type = contentType == null ? null : contentType.split(";", 2)[0].trim();
        return direct.push(caller.principal(), name, type, body);
    }
}
