package io.tributary.registry.request;

/**
 * An answer of the API that is not a success: one of the SPEC 2 error codes and its message, which the API sends as
 * the error body. Thrown where a request is refused (a field is wrong, a resource is missing or exists, a privilege is
 * lacking, the registry database does not answer). The message names the request field and says how to fix it; it
 * never contains a secret value, nor a library's class names (see {@link io.tributary.schema.LibraryMessages}). No
 * stack trace is captured: these are answers, not failures. (A failed call to a schema registry is
 * {@code schema.SchemaRegistryException}, which the schema compilers turn into one of these.)
 */
public final class ApiException extends RuntimeException {
    private final ErrorCode code;

    public ApiException(ErrorCode code, String message) {
        super(io.tributary.schema.LibraryMessages.clean(message), null, false, false);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }

    public static ApiException invalid(String field, String problem) {
        return new ApiException(ErrorCode.INVALID_PARAMETER_VALUE, field + ": " + problem);
    }

    public static ApiException missing(String field) {
        return invalid(field, "is required");
    }

    public static ApiException notFound(String message) {
        return new ApiException(ErrorCode.RESOURCE_DOES_NOT_EXIST, message);
    }

    public static ApiException exists(String message) {
        return new ApiException(ErrorCode.RESOURCE_ALREADY_EXISTS, message);
    }
}
