package io.tributary.registry.request;

/** The error codes of SPEC 2 with their HTTP status. */
public enum ErrorCode {
    MALFORMED_REQUEST(400),
    INVALID_PARAMETER_VALUE(400),
    UNAUTHENTICATED(401),
    PERMISSION_DENIED(403),
    RESOURCE_DOES_NOT_EXIST(404),
    RESOURCE_ALREADY_EXISTS(409),
    RESOURCE_CONFLICT(409),
    REQUEST_TOO_LARGE(413),
    INTERNAL_ERROR(500),
    TEMPORARILY_UNAVAILABLE(503);

    private final int status;

    ErrorCode(int status) {
        this.status = status;
    }

    public int status() {
        return status;
    }
}
