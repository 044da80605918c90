package io.tributary.delta;

import java.io.IOException;

/**
 * The warehouse itself cannot be used, whatever the table: its bucket does not exist, the storage refuses the
 * credentials, or its endpoint cannot be reached. The message says which setting to look at; it is the server's
 * configuration (or the storage service) that needs fixing, never the caller's request.
 */
public final class WarehouseUnavailableException extends IOException {
    public WarehouseUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
