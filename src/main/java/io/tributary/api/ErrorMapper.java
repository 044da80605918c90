package io.tributary.api;

import io.smallrye.mutiny.Uni;
import io.tributary.delta.WarehouseUnavailableException;
import io.tributary.registry.health.RegistryHealth;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.ErrorCode;
import io.tributary.registry.store.Conflicts;
import io.tributary.security.PermissionDeniedException;
import io.tributary.security.UnauthenticatedException;
import jakarta.inject.Inject;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Turns every failure into the SPEC 2 error body. Unexpected failures become a generic 500: the response never
 * carries a stack trace, an exception class name or a secret; the server log gets the details.
 */
public class ErrorMapper {
    private static final Logger LOG = Logger.getLogger(ErrorMapper.class);

    @Inject
    RegistryHealth health;

    @ServerExceptionMapper
    public Response registry(ApiException e) {
        Response response = ErrorBody.response(e.code(), e.getMessage());
        return e.code() == ErrorCode.TEMPORARILY_UNAVAILABLE
                ? Response.fromResponse(response).header("Retry-After", "5").build() : response;
    }

    @ServerExceptionMapper
    public Response denied(PermissionDeniedException e) {
        return ErrorBody.response(ErrorCode.PERMISSION_DENIED, e.getMessage());
    }

    @ServerExceptionMapper
    public Response unauthenticated(UnauthenticatedException e) {
        return Response.fromResponse(ErrorBody.response(ErrorCode.UNAUTHENTICATED, e.getMessage()))
                .header("WWW-Authenticate", "Bearer").build();
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        int status = e.getResponse() == null ? 500 : e.getResponse().getStatus();
        return switch (status) {
            case 404 -> ErrorBody.response(ErrorCode.RESOURCE_DOES_NOT_EXIST,
                    "no such endpoint: check the path against /q/openapi");
            case 405 -> Response.fromResponse(ErrorBody.response(ErrorCode.INVALID_PARAMETER_VALUE,
                    "this endpoint does not accept that HTTP method: check /q/openapi")).status(405).build();
            case 406, 415 -> Response.fromResponse(ErrorBody.response(ErrorCode.MALFORMED_REQUEST,
                    "unsupported media type: send and accept application/json")).status(status).build();
            case 400 -> ErrorBody.response(ErrorCode.MALFORMED_REQUEST, "the request cannot be read: send a JSON "
                    + "object with Content-Type application/json");
            default -> internal(e);
        };
    }

    @ServerExceptionMapper
    public Uni<Response> unexpected(Throwable e) {
        if (Conflicts.uniqueViolation(e) || Conflicts.foreignKeyViolation(e) || Conflicts.lostUpdate(e)) {
            // A race no service turned into its own words: still the caller's to retry, never a 500.
            LOG.debugf(e, "request lost a race with a concurrent one");
            return Uni.createFrom().item(ErrorBody.response(ErrorCode.RESOURCE_CONFLICT, "a concurrent request "
                    + "changed the same object first; this request changed nothing: read the object again and retry"));
        }
        WarehouseUnavailableException warehouse = warehouse(e);
        if (warehouse != null) {
            // The server's storage, not the request: the message names the setting to fix, and nothing was changed.
            LOG.warnf("request failed: %s", warehouse.getMessage());
            return Uni.createFrom().item(registry(new ApiException(ErrorCode.TEMPORARILY_UNAVAILABLE,
                    warehouse.getMessage())));
        }
        Throwable lost = lostConnection(e);
        if (lost != null && health.failure() == null) {
            LOG.warnf("request failed on a lost connection: %s", lost.getMessage());
            return Uni.createFrom().item(registry(new ApiException(ErrorCode.TEMPORARILY_UNAVAILABLE,
                    "a service this request needs is not answering (" + lost.getMessage()
                            + "); retry in a few seconds")));
        }
        // Whatever the failure looks like, a database that does not answer is the likelier cause than a bug: ask it
        // before answering 500 (the pool's errors on a lost connection come in many classes).
        return health.answers().map(up -> {
            if (!up) {
                LOG.warnf("request failed while the registry database is not answering: %s", e.getMessage());
                return registry(health.unavailable());
            }
            return internal(e);
        });
    }

    private static Response internal(Throwable e) {
        LOG.errorf(e, "request failed unexpectedly");
        return ErrorBody.response(ErrorCode.INTERNAL_ERROR,
                "the server failed to handle the request; the server log has the details");
    }

    public static WarehouseUnavailableException warehouse(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof WarehouseUnavailableException w) {
                return w;
            }
        }
        return null;
    }

    /**
     * The failure to reach a service (refused, reset or closed connections; JDBC's connection-exception class 08; a
     * PostgreSQL that refuses sessions) in
     * the chain of {@code e}, or null: Hibernate Reactive and the write locks wrap them. Seen before the probe notices
     * a database outage, and for the other services a request calls.
     */
    public static Throwable lostConnection(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.net.ConnectException || t instanceof java.net.SocketException
                    || t instanceof java.sql.SQLTransientConnectionException
                    || t instanceof java.sql.SQLNonTransientConnectionException
                    || t instanceof io.vertx.sqlclient.ClosedConnectionException
                    || t instanceof java.sql.SQLException sql && sql.getSQLState() != null
                            && (sql.getSQLState().startsWith("08") || notAnswering(sql.getSQLState()))
                    || t instanceof io.vertx.pgclient.PgException pg && (notAnswering(pg.getSqlState())
                            || "FATAL".equals(pg.getSeverity()))
                    || t instanceof org.postgresql.util.PSQLException psql && psql.getServerErrorMessage() != null
                            && "FATAL".equals(psql.getServerErrorMessage().getSeverity())) {
                return t;
            }
        }
        return null;
    }

    /**
     * PostgreSQL's refusals of a session rather than of a statement: shut down or restarting (57P01-57P03), too many
     * connections (53300); any other error PostgreSQL sends as FATAL ends the session too (55000: the database is
     * not accepting connections): a database that is not there for now.
     */
    private static boolean notAnswering(String sqlState) {
        return sqlState != null && (sqlState.startsWith("57P") || sqlState.equals("53300"));
    }
}
