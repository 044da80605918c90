package io.tributary.ingest;

/**
 * The stream was deleted while this writer ran (on another server, or while an ingest function held its ingester
 * warm): its write guard found the registration gone, so the batch was not committed and the files written for it
 * were removed. The writer must stop for good; retrying cannot succeed.
 */
public final class StreamDeletedException extends RuntimeException {
    public StreamDeletedException(String tableLocation) {
        super("the stream was deleted (its registration is gone): this writer stopped without committing to "
                + tableLocation + " and removed the files it had written there");
    }
}
