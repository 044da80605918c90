package io.tributary.security;

/** The caller is known but may not do this (403 PERMISSION_DENIED). */
public final class PermissionDeniedException extends RuntimeException {
    public PermissionDeniedException(String message) {
        super(message, null, false, false);
    }
}
