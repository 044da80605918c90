package io.tributary.registry.request;

/**
 * A request the registry refuses. The message names the request field and says how to fix it; it never contains a
 * secret value, nor a library's class names (see {@link io.tributary.schema.LibraryMessages}). No stack trace is captured: these are answers, not failures.
 */
public final class RegistryException extends RuntimeException {
    private final ErrorCode code;

    public RegistryException(ErrorCode code, String message) {
        super(io.tributary.schema.LibraryMessages.clean(message), null, false, false);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }

    public static RegistryException invalid(String field, String problem) {
        return new RegistryException(ErrorCode.INVALID_PARAMETER_VALUE, field + ": " + problem);
    }

    public static RegistryException missing(String field) {
        return invalid(field, "is required");
    }

    public static RegistryException notFound(String message) {
        return new RegistryException(ErrorCode.RESOURCE_DOES_NOT_EXIST, message);
    }

    public static RegistryException exists(String message) {
        return new RegistryException(ErrorCode.RESOURCE_ALREADY_EXISTS, message);
    }
}
