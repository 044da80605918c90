package io.tributary.runtime;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What the lifecycle channel carries: a stream started or stopped somewhere, so every server follows. */
record LifecycleEvent(@JsonProperty("stream_id") String streamId, @JsonProperty("action") Action action) {

    enum Action { STARTED, STOPPED }
}
