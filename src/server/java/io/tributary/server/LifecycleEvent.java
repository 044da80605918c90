package io.tributary.server;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What the lifecycle channel carries: a stream started or stopped somewhere, so every server follows, and when
 * (the announcing server's clock, epoch milliseconds), so a start announced before a local stop cannot revive it.
 */
@RegisterForReflection // read and written by Jackson, also in a native image
record LifecycleEvent(@JsonProperty("stream_id") String streamId, @JsonProperty("action") Action action,
        @JsonProperty("announced_at") long announcedAt) {

    /** The PostgreSQL notification channel, in the registry database every server shares. */
    static final String CHANNEL = "tributary_stream_lifecycle";

    enum Action { STARTED, STOPPED }
}
