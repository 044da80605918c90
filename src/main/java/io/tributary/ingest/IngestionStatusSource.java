package io.tributary.ingest;

import java.util.Optional;

/** Where the API reads a stream's live status from; empty when this process knows nothing about the stream. */
public interface IngestionStatusSource {
    Optional<IngestionStatus> status(String streamId);
}
