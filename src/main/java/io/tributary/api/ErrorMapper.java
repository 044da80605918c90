package io.tributary.api;

import io.tributary.registry.ErrorCode;
import io.tributary.registry.RegistryException;
import io.tributary.security.PermissionDeniedException;
import io.tributary.security.UnauthenticatedException;
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

    @ServerExceptionMapper
    public Response registry(RegistryException e) {
        return ErrorBody.response(e.code(), e.getMessage());
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
            default -> unexpected(e);
        };
    }

    @ServerExceptionMapper
    public Response unexpected(Throwable e) {
        LOG.errorf(e, "request failed unexpectedly");
        return ErrorBody.response(ErrorCode.INTERNAL_ERROR,
                "the server failed to handle the request; the server log has the details");
    }
}
