package io.tributary.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.vertx.VertxContextSupport;
import io.smallrye.common.annotation.Blocking;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.StreamDirectory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Follows streams started or stopped through another server's API: every server reads the whole lifecycle topic
 * (its own consumer group) and starts or stops its local pipeline. Its own events find the work already done.
 */
@ApplicationScoped
class LifecycleListener {

    private static final Logger LOG = Logger.getLogger(LifecycleListener.class);

    private final ServerPipelines pipelines;
    private final StreamDirectory directory;
    private final ObjectMapper json;

    @Inject
    LifecycleListener(ServerPipelines pipelines, StreamDirectory directory, ObjectMapper json) {
        this.pipelines = pipelines;
        this.directory = directory;
        this.json = json;
    }

    @Incoming("stream-lifecycle-in")
    @Blocking
    void on(ConsumerRecord<String, String> record) {
        LifecycleEvent event;
        try {
            event = json.readValue(record.value(), LifecycleEvent.class);
        } catch (Exception e) {
            LOG.warnf("ignoring a malformed stream lifecycle event: %s", e.getMessage());
            return;
        }
        if (event.streamId() == null || event.action() == null) {
            LOG.warn("ignoring a stream lifecycle event without stream_id or action");
            return;
        }
        switch (event.action()) {
            case STOPPED -> pipelines.stopHere(event.streamId());
            case STARTED -> {
                if (pipelines.runsHere(event.streamId())) {
                    return;
                }
                Optional<PipelineSpec> spec;
                try {
                    spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(event.streamId()));
                } catch (Throwable e) {
                    LOG.warnf("could not load stream %s to start it here: %s", event.streamId(), e.getMessage());
                    return;
                }
                // Absent: the stream was deleted before this server caught up.
                spec.ifPresent(found -> pipelines.startAnnounced(found, record.timestamp()));
            }
        }
    }
}
