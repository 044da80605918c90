package io.tributary.server;

import io.quarkus.vertx.VertxContextSupport;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * Brings this server in line with the registry: starts every listed stream that does not run here yet, page by page,
 * and stops the pipelines of streams the registry no longer has (deleted while this server heard nothing).
 */
@ApplicationScoped
class StreamCatchUp {

    private static final Logger LOG = Logger.getLogger(StreamCatchUp.class);
    private static final int PAGE = 500;

    private final ServerPipelines pipelines;
    private final StreamDirectory directory;

    @Inject
    StreamCatchUp(ServerPipelines pipelines, StreamDirectory directory) {
        this.pipelines = pipelines;
        this.directory = directory;
    }

    /**
     * Returns how many streams the registry listed. {@code asOfMs} is when the caller began: a stream stopped here
     * since (its delete in progress) is not started again.
     */
    int catchUp(long asOfMs) throws Throwable {
        Set<String> listed = new HashSet<>();
        String after = null;
        do {
            String from = after;
            StreamDirectory.Page page = VertxContextSupport.subscribeAndAwait(() -> directory.page(from, PAGE));
            for (PipelineSpec spec : page.specs()) {
                listed.add(spec.streamId());
                pipelines.startAnnounced(spec, asOfMs);
            }
            after = page.lastId();
        } while (after != null);
        for (String id : pipelines.runningIds()) {
            if (listed.contains(id)) {
                continue;
            }
            // Not listed: deleted, or created after its page was read; only the registry itself can tell.
            Optional<PipelineSpec> still = VertxContextSupport.subscribeAndAwait(() -> directory.byId(id));
            if (still.isEmpty()) {
                LOG.infof("stream %s was deleted meanwhile; stopping its pipeline here", id);
                pipelines.stopHere(id);
            }
        }
        return listed.size();
    }
}
