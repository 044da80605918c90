package io.tributary.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.tributary.registry.request.ErrorCode;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** Every error answer of the API (SPEC 2): {@code {"error_code": "...", "message": "..."}}. */
public record ErrorBody(@JsonProperty("error_code") String errorCode, @JsonProperty("message") String message) {

    static Response response(ErrorCode code, String message) {
        return Response.status(code.status()).type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new ErrorBody(code.name(), message)).build();
    }
}
