package io.tributary.api;

import io.quarkus.vertx.http.runtime.RouteConstants;
import io.smallrye.mutiny.Uni;
import io.tributary.registry.health.RegistryHealth;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.request.SyncedTableRequests;
import io.tributary.registry.service.SyncedTableService;
import io.tributary.security.Authenticator;
import io.tributary.security.PermissionDeniedException;
import io.tributary.security.Principal;
import io.tributary.security.UnauthenticatedException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /api/2.0/database/synced_tables/{name}/lookup} served by a plain Vert.x route in front of the REST
 * layer, the hot path of the online store (SPEC "Synced tables", lookup): the request is authenticated, its body bound
 * with the registry's strict reader, the registry gate applied and the service's JSON sent, as
 * {@link SyncedTablesResource#lookup} does, with the same error bodies (through {@link ErrorMapper}) but without the
 * REST layer's per-request machinery (request scope, filter and interceptor chains, message body reader and writer
 * lookups). That machinery was a measured part of a lookup's server CPU, and on a 2-core machine every microsecond of
 * CPU a request costs is also time others wait in the run queue.
 *
 * <p>The REST method stays: it describes the endpoint in the OpenAPI document, and this route hands it the requests
 * it does not take on: a body without a Content-Length (the REST layer cuts a chunked body at the size limit) and an
 * Accept header that rules JSON out (answered 406 there).
 */
@ApplicationScoped
public class LookupRoute {
    static final String PATH = "/api/2.0/database/synced_tables/:name/lookup";

    @Inject
    Authenticator authenticator;
    @Inject
    RegistryHealth health;
    @Inject
    SyncedTableService synced;

    private ErrorMapper errors;

    void install(@Observes Router router) {
        ErrorMapper mapper = new ErrorMapper();
        mapper.health = health;
        this.errors = mapper;
        // After BodyLimit (Integer.MIN_VALUE), which refuses an oversized Content-Length first; before the REST layer.
        // The request metrics turn the path's ":name" into the REST layer's uri tag, ".../{name}/lookup".
        router.post(PATH).order(RouteConstants.ROUTE_ORDER_BEFORE_DEFAULT).handler(this::lookup);
    }

    void lookup(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        if (request.getHeader(HttpHeaders.CONTENT_LENGTH) == null || !acceptsJson(request.getHeader(HttpHeaders.ACCEPT))) {
            ctx.next();
            return;
        }
        Principal caller;
        try {
            caller = authenticator.authenticate(request.getHeader(HttpHeaders.AUTHORIZATION));
        } catch (UnauthenticatedException e) {
            send(ctx, errors.unauthenticated(e));
            return;
        }
        String name = ctx.pathParam("name");
        io.vertx.core.Future<Buffer> whole = request.body();
        // Quarkus pauses every request until a handler takes its body; the REST layer resumes it, so must this.
        request.resume();
        whole.onComplete(read -> {
            if (read.failed()) {
                fail(ctx, read.cause());
                return;
            }
            Uni<io.tributary.registry.view.JsonBody> work;
            try {
                SyncedTableRequests.Lookup body = RegistryJson.parse(read.result().toString(StandardCharsets.UTF_8),
                        SyncedTableRequests.Lookup.class);
                // The registry gate (RegistryGate): refused before it starts while the registry is down, failed
                // with 503 if it goes down meanwhile.
                if (health.failure() != null) {
                    throw health.unavailable();
                }
                work = health.untilDown(synced.lookup(caller, name, body));
            } catch (RuntimeException e) {
                fail(ctx, e);
                return;
            }
            work.subscribe().with(answer -> {
                HttpServerResponse response = ctx.response();
                response.putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
                response.end(Buffer.buffer(answer.utf8()));
            }, failure -> fail(ctx, failure));
        });
    }

    /** The answer {@link ErrorMapper} gives the REST layer for {@code failure}, sent the same way. */
    private void fail(RoutingContext ctx, Throwable failure) {
        if (failure instanceof ApiException e) {
            send(ctx, errors.registry(e));
        } else if (failure instanceof PermissionDeniedException e) {
            send(ctx, errors.denied(e));
        } else if (failure instanceof UnauthenticatedException e) {
            send(ctx, errors.unauthenticated(e));
        } else if (failure instanceof WebApplicationException e) {
            send(ctx, errors.web(e));
        } else {
            errors.unexpected(failure).subscribe().with(r -> send(ctx, r), e -> ctx.fail(e));
        }
    }

    private static void send(RoutingContext ctx, Response answer) {
        HttpServerResponse response = ctx.response();
        if (response.ended()) {
            return;
        }
        response.setStatusCode(answer.getStatus());
        for (Map.Entry<String, List<String>> header : answer.getStringHeaders().entrySet()) {
            response.putHeader(header.getKey(), header.getValue());
        }
        byte[] body = RegistryJson.write(answer.getEntity()).getBytes(StandardCharsets.UTF_8);
        response.end(Buffer.buffer(body));
    }

    /**
     * Whether an Accept header plainly lets the answer be application/json (no header, or a range that names it
     * without parameters); anything else (q-values among them) is left to the REST layer's negotiation.
     */
    static boolean acceptsJson(String accept) {
        if (accept == null || accept.isBlank()) {
            return true;
        }
        for (String range : accept.split(",")) {
            String type = range.trim().toLowerCase(java.util.Locale.ROOT);
            if (type.equals("*/*") || type.equals("application/*") || type.equals("application/json")) {
                return true;
            }
        }
        return false;
    }
}
