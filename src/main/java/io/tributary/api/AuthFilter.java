package io.tributary.api;

import io.tributary.registry.request.ErrorCode;
import io.tributary.security.Authenticator;
import io.tributary.security.UnauthenticatedException;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/** Every API request has a principal (SPEC 3); a request without valid credentials stops here with 401. */
public class AuthFilter {
    @Inject
    Authenticator authenticator;
    @Inject
    Caller caller;

    @ServerRequestFilter
    public Response authenticate(ContainerRequestContext request) {
        try {
            caller.set(authenticator.authenticate(request.getHeaderString(HttpHeaders.AUTHORIZATION)));
            return null;
        } catch (UnauthenticatedException e) {
            return Response.fromResponse(ErrorBody.response(ErrorCode.UNAUTHENTICATED, e.getMessage()))
                    .header("WWW-Authenticate", "Bearer").build();
        }
    }
}
