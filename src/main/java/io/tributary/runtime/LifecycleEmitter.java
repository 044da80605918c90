package io.tributary.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.jboss.logging.Logger;

/** Publishes stream lifecycle events on the {@code tributary.stream-lifecycle} topic. */
@ApplicationScoped
class LifecycleEmitter {

    private static final Logger LOG = Logger.getLogger(LifecycleEmitter.class);

    private final Emitter<String> emitter;
    private final ObjectMapper json;

    @Inject
    LifecycleEmitter(@Channel("stream-lifecycle-out") Emitter<String> emitter, ObjectMapper json) {
        this.emitter = emitter;
        this.json = json;
    }

    /** Fire and forget: the caller already acted locally; other servers also catch up at their next start. */
    void emit(String streamId, LifecycleEvent.Action action) {
        String payload;
        try {
            payload = json.writeValueAsString(new LifecycleEvent(streamId, action));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        emitter.send(payload).whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.warnf("could not publish %s of stream %s to other servers: %s", action, streamId,
                        failure.getMessage());
            }
        });
    }
}
