package io.tributary.server.push;

import io.quarkus.websockets.next.OpenConnections;
import io.quarkus.websockets.next.WebSocketConnection;
import io.tributary.ingest.PipelineControl;
import io.tributary.ingest.PipelineSpec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Learns of deletes like the other pipelines, so a deleted stream's open push connections end with a clear reason
 * (close code 4404) rather than on their next batch. Deletes made on another server reach these connections through
 * the write fence: their next batch is refused and the connection closed the same way.
 */
@ApplicationScoped
public class PushConnections implements PipelineControl {
    @Inject
    OpenConnections connections;

    @Override
    public void start(PipelineSpec spec) {
        // A connection opens when a producer connects.
    }

    @Override
    public void stop(String streamId) {
        for (WebSocketConnection connection : connections.findByEndpointId(PushStream.ENDPOINT)) {
            if (streamId.equals(PushStream.streamId(connection))) {
                PushStream.deleted(connection);
            }
        }
    }
}
