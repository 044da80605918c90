package io.tributary.security;

/** Missing or invalid credentials (401 UNAUTHENTICATED). The message never repeats the credential. */
public final class UnauthenticatedException extends RuntimeException {
    public UnauthenticatedException(String message) {
        super(message, null, false, false);
    }
}
