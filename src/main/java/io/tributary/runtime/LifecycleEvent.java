package io.tributary.runtime;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** What the lifecycle channel carries: a stream started or stopped somewhere, so every server follows. */
@RegisterForReflection // read and written by Jackson, also in a native image
record LifecycleEvent(@JsonProperty("stream_id") String streamId, @JsonProperty("action") Action action) {

    enum Action { STARTED, STOPPED }
}
