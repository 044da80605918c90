package io.tributary.online;

/**
 * A synced table that cannot follow its source until someone acts (a schema change that is not additive, a source
 * the sync cannot read); the message says what happened and what to do. Syncing stops with it as the state message.
 */
public class SyncException extends RuntimeException {
    public SyncException(String message) {
        super(message);
    }

    public SyncException(String message, Throwable cause) {
        super(message, cause);
    }
}
