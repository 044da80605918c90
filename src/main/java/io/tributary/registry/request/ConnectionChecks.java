package io.tributary.registry.request;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The checks of a connection's options (SPEC 2.2) that need nothing but the request; the bootstrap-server rule is
 * shared with a stream's direct mTLS config (SPEC 2.3). Each failure names the field and the fix.
 */
public final class ConnectionChecks {
    static final Set<String> SASL_MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");
    static final Set<String> SECURITY_PROTOCOLS = Set.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");
    private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9_.-]+):[0-9]{1,5}");

    private ConnectionChecks() {}

    /** The options with names upper-cased and servers trimmed. */
    public static ConnectionSpec.Options normalize(ConnectionSpec.Options o) {
        if (o == null) {
            throw ApiException.missing("options");
        }
        checkBootstrapServers("options.bootstrap_servers", o.bootstrapServers());
        String mechanism = upper(o.saslMechanism());
        if (o.credential() != null && mechanism != null) {
            throw ApiException.invalid("options", "set either credential (MSK IAM) or sasl_mechanism with user "
                    + "and password, not both");
        }
        if (o.credential() != null && o.credential().isBlank()) {
            throw ApiException.invalid("options.credential", "must not be empty");
        }
        if (mechanism != null) {
            if (!SASL_MECHANISMS.contains(mechanism)) {
                throw ApiException.invalid("options.sasl_mechanism", "'" + Names.shorten(o.saslMechanism())
                        + "' is not supported; use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512");
            }
            if (o.user() == null || o.user().isEmpty()) {
                throw ApiException.invalid("options.user", "is required with sasl_mechanism");
            }
            if (o.password() == null || o.password().isEmpty()) {
                throw ApiException.invalid("options.password", "is required with sasl_mechanism");
            }
        } else {
            if (o.user() != null) {
                throw ApiException.invalid("options.user", "is only used with sasl_mechanism; set "
                        + "sasl_mechanism or remove user");
            }
            if (o.password() != null) {
                throw ApiException.invalid("options.password", "is only used with sasl_mechanism; set "
                        + "sasl_mechanism or remove password");
            }
        }
        String protocol = upper(o.securityProtocol());
        if (protocol != null && !SECURITY_PROTOCOLS.contains(protocol)) {
            throw ApiException.invalid("options.security_protocol", "'" + Names.shorten(o.securityProtocol())
                    + "' is not supported; use PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL");
        }
        if (o.schemaRegistryUrl() != null) {
            try {
                java.net.URI uri = new java.net.URI(o.schemaRegistryUrl());
                if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())
                        || uri.getHost() == null) {
                    throw new java.net.URISyntaxException(o.schemaRegistryUrl(), "not http(s)");
                }
            } catch (java.net.URISyntaxException e) {
                throw ApiException.invalid("options.schema_registry_url", "is not an http(s) URL; use e.g. "
                        + "https://registry:8081");
            }
        } else if (o.schemaRegistryApiKey() != null || o.schemaRegistryApiSecret() != null) {
            throw ApiException.invalid("options.schema_registry_url", "is required with schema_registry_api_key "
                    + "or schema_registry_api_secret");
        }
        return new ConnectionSpec.Options(o.bootstrapServers().trim(), o.credential(), mechanism, o.user(),
                o.password(), protocol, o.schemaRegistryUrl(), o.schemaRegistryApiKey(), o.schemaRegistryApiSecret());
    }

    public static void checkBootstrapServers(String field, String servers) {
        if (servers == null || servers.isBlank()) {
            throw ApiException.missing(field);
        }
        for (String server : servers.split(",")) {
            if (!HOST_PORT.matcher(server.trim()).matches()) {
                throw ApiException.invalid(field, "'" + Names.shorten(server.trim()) + "' is not host:port; use "
                        + "a comma-separated list such as b1:9092,b2:9092");
            }
        }
    }

    private static String upper(String s) {
        return s == null ? null : s.toUpperCase(Locale.ROOT);
    }
}
