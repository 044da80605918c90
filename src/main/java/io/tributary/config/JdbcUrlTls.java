package io.tributary.config;

import io.vertx.core.net.PemTrustOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A JDBC URL's TLS, as pgjdbc reads it, for a reactive connection made from the same URL (the lookups' pools on
 * {@code TRIBUTARY_ONLINE_JDBC_URL}, whose syncs go through pgjdbc). The reactive client's URI parser reads
 * {@code sslmode} alone and defaults to no TLS, so the two disagreed: a URL with {@code ssl=true}, or none (pgjdbc
 * prefers TLS), gave lookups a plain connection, which a database taking TLS only refuses; one with
 * {@code sslmode=verify-full&sslrootcert=…} (what AWS documents for RDS) failed every lookup, since the reactive client
 * then wants a hostname check and trust options it was not given. Syncs worked meanwhile, so the synced table looked
 * healthy while no lookup answered.
 */
public final class JdbcUrlTls {
    private JdbcUrlTls() {}

    /**
     * {@code options} with the TLS of {@code url}'s parameters, as pgjdbc has it: {@code sslmode} (default
     * {@code prefer}; {@code ssl=true} alone means {@code verify-full}); no certificate check below
     * {@code verify-ca}; {@code sslrootcert} (default {@code ~/.postgresql/root.crt}) the trusted CA otherwise;
     * {@code sslfactory=org.postgresql.ssl.NonValidatingFactory} no check at all; {@code verify-full} the host name
     * checked against the certificate.
     *
     * @throws IllegalArgumentException naming {@code setting} for an {@code sslmode} pgjdbc does not know either
     */
    public static PgConnectOptions apply(PgConnectOptions options, String url, String setting) {
        Map<String, String> p = parameters(url);
        String ssl = p.get("ssl");
        boolean sslOn = ssl != null && (ssl.isEmpty() || ssl.equalsIgnoreCase("true"));
        boolean nonValidating = p.getOrDefault("sslfactory", "").endsWith(".NonValidatingFactory");
        SslMode mode;
        String named = p.get("sslmode");
        if (named != null) {
            try {
                mode = SslMode.of(named.strip().toLowerCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(setting + ": sslmode '" + named + "' is none of disable, allow, "
                        + "prefer, require, verify-ca, verify-full");
            }
        } else if (sslOn) {
            mode = nonValidating ? SslMode.REQUIRE : SslMode.VERIFY_FULL;
        } else {
            mode = SslMode.PREFER;
        }
        options.setSslMode(mode);
        boolean verifies = mode == SslMode.VERIFY_CA || mode == SslMode.VERIFY_FULL;
        if (!verifies || nonValidating) {
            options.setTrustAll(true);
            return options;
        }
        String root = p.get("sslrootcert");
        Path ca = root != null ? Path.of(root) : Path.of(System.getProperty("user.home"), ".postgresql", "root.crt");
        if (root != null || Files.isReadable(ca)) {
            options.setPemTrustOptions(new PemTrustOptions().addCertPath(ca.toString()));
        }
        if (mode == SslMode.VERIFY_FULL) {
            options.setHostnameVerificationAlgorithm("HTTPS");
        }
        return options;
    }

    private static Map<String, String> parameters(String url) {
        Map<String, String> out = new HashMap<>();
        int q = url.indexOf('?');
        if (q < 0) {
            return out;
        }
        for (String pair : url.substring(q + 1).split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.put(name.toLowerCase(Locale.ROOT), value);
        }
        return out;
    }
}
