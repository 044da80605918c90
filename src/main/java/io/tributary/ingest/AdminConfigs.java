package io.tributary.ingest;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** The admin-client configuration built from a stream's Kafka properties, for the clients that ask about its topics. */
public final class AdminConfigs {
    private static final long REQUEST_TIMEOUT_MS = 10_000;

    private AdminConfigs() {}

    /**
     * The connection's properties with our client id and timeouts, unless the connection set its own. Kafka's admin
     * client refuses a {@code default.api.timeout.ms} below {@code request.timeout.ms}, so a connection that only
     * shortens the former (tests do, and so may a user) gets a request timeout that fits inside it.
     */
    public static Map<String, Object> of(Map<String, String> kafkaProperties, String clientId, Duration apiTimeout) {
        Map<String, Object> config = new HashMap<>(kafkaProperties);
        config.put("client.id", clientId);
        config.putIfAbsent("default.api.timeout.ms", String.valueOf(apiTimeout.toMillis()));
        long api = Long.parseLong(String.valueOf(config.get("default.api.timeout.ms")).trim());
        config.putIfAbsent("request.timeout.ms", String.valueOf(Math.min(REQUEST_TIMEOUT_MS, api)));
        return config;
    }
}
