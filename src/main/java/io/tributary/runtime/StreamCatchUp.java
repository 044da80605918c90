package io.tributary.runtime;

import io.quarkus.vertx.VertxContextSupport;
import io.tributary.registry.StreamDirectory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Starts here every stream the registry lists that does not run here yet, page by page. */
@ApplicationScoped
class StreamCatchUp {

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
    int startRegistered(long asOfMs) throws Throwable {
        int listed = 0;
        String after = null;
        do {
            String from = after;
            StreamDirectory.Page page = VertxContextSupport.subscribeAndAwait(() -> directory.page(from, PAGE));
            page.specs().forEach(spec -> pipelines.startAnnounced(spec, asOfMs));
            listed += page.specs().size();
            after = page.lastId();
        } while (after != null);
        return listed;
    }
}
