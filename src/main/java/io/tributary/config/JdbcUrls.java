package io.tributary.config;

import java.util.Locale;
import java.util.Optional;

/**
 * The registry database has one documented setting, the reactive (Vert.x) URL; the JDBC side (Flyway, the advisory
 * locks) connects to the same database, so its URL is derived from that one instead of being a second setting that
 * could point elsewhere.
 */
public final class JdbcUrls {
    private static final String VERTX_PREFIX = "vertx-reactive:";

    private JdbcUrls() {}

    /**
     * {@code postgresql://[user[:password]@]host[:port][/db][?params]} (also {@code postgres://}, with or without
     * {@code vertx-reactive:}, the first of a comma-separated list) as {@code jdbc:postgresql://host[:port]/db?params}.
     * Credentials in the URL become the {@code user} and {@code password} parameters (pgjdbc reads no user info), and
     * {@code sslMode} (the reactive client's {@code ssl-mode}, same names as pgjdbc's) becomes {@code sslmode} unless
     * the URL has one. Empty when the URL is not a PostgreSQL one.
     */
    public static Optional<String> fromReactive(String reactiveUrl, String sslMode) {
        return fromReactive(reactiveUrl, sslMode, false, java.util.List.of());
    }

    /**
     * As {@link #fromReactive(String, String)}, with the reactive pool's trust settings in pgjdbc's terms (unless the
     * URL has {@code sslrootcert} or {@code sslfactory}), for a URL that uses TLS: {@code trustAll} as
     * {@code sslfactory=org.postgresql.ssl.NonValidatingFactory}, one PEM certificate file ({@code trust-certificate-pem
     * .certs}) as {@code sslrootcert}. Without them pgjdbc looked for {@code ~/.postgresql/root.crt} under
     * {@code verify-ca}/{@code verify-full}, and a server configured as the README says stopped at its migrations.
     */
    public static Optional<String> fromReactive(String reactiveUrl, String sslMode, boolean trustAll,
            java.util.List<String> trustPemCerts) {
        if (reactiveUrl == null) {
            return Optional.empty();
        }
        String url = reactiveUrl.strip();
        int comma = url.indexOf(',');
        if (comma >= 0) {
            url = url.substring(0, comma).strip();
        }
        if (url.regionMatches(true, 0, VERTX_PREFIX, 0, VERTX_PREFIX.length())) {
            url = url.substring(VERTX_PREFIX.length());
        }
        String lower = url.toLowerCase(Locale.ROOT);
        String rest;
        if (lower.startsWith("postgresql://")) {
            rest = url.substring("postgresql://".length());
        } else if (lower.startsWith("postgres://")) {
            rest = url.substring("postgres://".length());
        } else {
            return Optional.empty();
        }
        String query = "";
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        int slash = rest.indexOf('/');
        String authority = slash >= 0 ? rest.substring(0, slash) : rest;
        String path = slash >= 0 ? rest.substring(slash) : "/";
        StringBuilder params = new StringBuilder(query);
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            authority = authority.substring(at + 1);
            int colon = userInfo.indexOf(':');
            String user = colon >= 0 ? userInfo.substring(0, colon) : userInfo;
            if (!user.isEmpty() && !hasParam(query, "user")) {
                append(params, "user", user);
            }
            if (colon >= 0 && !hasParam(query, "password")) {
                append(params, "password", userInfo.substring(colon + 1));
            }
        }
        if (authority.isEmpty()) {
            return Optional.empty();
        }
        if (sslMode != null && !sslMode.isBlank() && !hasParam(query, "sslmode")) {
            append(params, "sslmode", sslMode.strip().toLowerCase(Locale.ROOT));
        }
        // The reactive client's schema setting is search_path; pgjdbc ignores that name and reads currentSchema, so
        // the migrations and locks went to the default schema while every query looked in the named one: a server
        // answering every call 500 "relation streams does not exist".
        String searchPath = param(query, "search_path");
        if (searchPath != null && !hasParam(query, "currentSchema")) {
            append(params, "currentSchema", searchPath);
        }
        String mode = param(params.toString(), "sslmode");
        boolean tls = mode != null && !mode.equalsIgnoreCase("disable");
        if (tls && !hasParam(query, "sslrootcert") && !hasParam(query, "sslfactory")) {
            if (trustAll) {
                append(params, "sslfactory", "org.postgresql.ssl.NonValidatingFactory");
            } else if (trustPemCerts.size() == 1) {
                append(params, "sslrootcert", java.net.URLEncoder.encode(trustPemCerts.get(0).strip(),
                        java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        return Optional.of("jdbc:postgresql://" + authority + path + (params.isEmpty() ? "" : "?" + params));
    }

    /**
     * {@code url} with {@code name=value} added (the value percent-encoded), unless it has that parameter already.
     */
    public static String withParam(String url, String name, String value) {
        int q = url.indexOf('?');
        if (q >= 0 && hasParam(url.substring(q + 1), name)) {
            return url;
        }
        return url + (q >= 0 ? "&" : "?") + name + "="
                + java.net.URLEncoder.encode(value, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static String param(String query, String name) {
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq >= 0 && pair.substring(0, eq).equalsIgnoreCase(name)) {
                return pair.substring(eq + 1);
            }
        }
        return null;
    }

    private static boolean hasParam(String query, String name) {
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if ((eq >= 0 ? pair.substring(0, eq) : pair).equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    // Values stay percent-encoded as they were in the URI: pgjdbc decodes its URL parameters.
    private static void append(StringBuilder params, String name, String value) {
        if (!params.isEmpty()) {
            params.append('&');
        }
        params.append(name).append('=').append(value);
    }
}
