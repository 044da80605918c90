package io.tributary.server;

import io.quarkus.vertx.VertxContextSupport;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.registry.directory.StreamDirectory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * Brings this server in line with the registry: starts every listed stream that does not run here yet, page by page,
 * and stops the pipelines of streams the registry no longer has (deleted while this server heard nothing). A stream
 * whose spec cannot be built now is handed to {@link UnresolvedStreams}, which tries it again.
 */
@ApplicationScoped
class StreamCatchUp {

    private static final Logger LOG = Logger.getLogger(StreamCatchUp.class);
    private static final int PAGE = 500;

    private final ServerPipelines pipelines;
    private final StreamDirectory directory;
    private final UnresolvedStreams unresolved;
    /**
     * Streams that never run a pipeline (no Kafka to read: their producers push): a stream keeps its kind for life, so
     * once seen here their specs are not built again by {@link #reconcile}.
     */
    private final Set<String> pushOnly = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Specs built by this server's catch-ups and comparisons, each decrypting secrets: their cost, for tests. */
    private final java.util.concurrent.atomic.AtomicLong specsBuilt = new java.util.concurrent.atomic.AtomicLong();

    @Inject
    StreamCatchUp(ServerPipelines pipelines, StreamDirectory directory, UnresolvedStreams unresolved) {
        this.pipelines = pipelines;
        this.directory = directory;
        this.unresolved = unresolved;
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
            specsBuilt.addAndGet(page.specs().size() + page.unresolved().size());
            for (PipelineSpec spec : page.specs()) {
                listed.add(spec.streamId());
                rememberKind(spec);
                pipelines.startAnnounced(spec, asOfMs);
                unresolved.resolved(spec.streamId());
            }
            for (StreamDirectory.Unresolved u : page.unresolved()) {
                // Registered, but its spec cannot be built now (a secret it reads is gone): one running here keeps
                // the spec it has; one not running here is tried again until it starts.
                listed.add(u.streamId());
                unresolved.leftOut(u.streamId(), u.streamName(), u.reason(), asOfMs);
            }
            after = page.lastId();
        } while (after != null);
        stopDeleted(listed);
        return listed.size();
    }

    /**
     * The periodic comparison while this server listens (a notification lost without its session missing it): by
     * ids, in one small query, building the specs only of streams that do not run here. A catch-up builds every
     * stream's spec (secrets decrypted, connection and schemas resolved), which a server of thousands of streams
     * cannot pay every minute. Returns how many streams the registry listed.
     */
    int reconcile(long asOfMs) throws Throwable {
        Map<String, String> registered = VertxContextSupport.subscribeAndAwait(directory::names);
        for (Map.Entry<String, String> stream : registered.entrySet()) {
            String id = stream.getKey();
            if (pipelines.runsHere(id) || pushOnly.contains(id) || unresolved.remembers(id)) {
                continue;
            }
            Optional<PipelineSpec> spec;
            specsBuilt.incrementAndGet();
            try {
                spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(id));
            } catch (Throwable e) {
                unresolved.leftOut(id, stream.getValue(), e.getMessage() == null ? e.getClass().getSimpleName()
                        : e.getMessage(), asOfMs);
                continue;
            }
            if (spec.isPresent()) {
                rememberKind(spec.get());
                pipelines.startAnnounced(spec.get(), asOfMs);
            }
        }
        pushOnly.retainAll(registered.keySet());
        stopDeleted(registered.keySet());
        return registered.size();
    }

    long specsBuilt() {
        return specsBuilt.get();
    }

    private void rememberKind(PipelineSpec spec) {
        if (spec.subscription() instanceof Subscription.Direct) {
            pushOnly.add(spec.streamId());
        }
    }

    /** Stops the pipelines here of streams the registry no longer has. */
    private void stopDeleted(Set<String> listed) throws Throwable {
        for (String id : pipelines.runningIds()) {
            if (listed.contains(id)) {
                continue;
            }
            // Not listed: deleted, or created after its page was read; only the registry itself can tell. Whether
            // it is registered, not its spec: a spec that cannot be built now is no delete (and asking for it would
            // fail the whole catch-up, so this server would stop following the others for as long).
            boolean still = VertxContextSupport.subscribeAndAwait(() -> directory.exists(id));
            if (!still) {
                LOG.infof("stream %s was deleted meanwhile; stopping its pipeline here", id);
                pipelines.stopHere(id);
            }
        }
    }
}
