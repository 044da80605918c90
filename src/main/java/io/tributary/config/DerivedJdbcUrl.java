package io.tributary.config;

import io.smallrye.config.ConfigSourceInterceptor;
import io.smallrye.config.ConfigSourceInterceptorContext;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.Priorities;
import jakarta.annotation.Priority;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Supplies {@code quarkus.datasource.jdbc.url} from {@code quarkus.datasource.reactive.url} (SPEC 6) when it is not
 * set itself, so a deployment configures its registry database once; an explicit JDBC URL still wins. Registered in
 * META-INF/services (its own file, so the Lambda builds' ConfigSourceFactory list does not replace it).
 */
@Priority(Priorities.APPLICATION)
public final class DerivedJdbcUrl implements ConfigSourceInterceptor {
    static final String JDBC_URL = "quarkus.datasource.jdbc.url";
    static final String REACTIVE_URL = "quarkus.datasource.reactive.url";
    static final String SSL_MODE = "quarkus.datasource.reactive.postgresql.ssl-mode";
    static final String SEARCH_PATH = "quarkus.datasource.reactive.additional-properties.search_path";

    @Override
    public ConfigValue getValue(ConfigSourceInterceptorContext context, String name) {
        ConfigValue value = context.proceed(name);
        if (!JDBC_URL.equals(name) || (value != null && value.getValue() != null && !value.getValue().isBlank())) {
            return value;
        }
        ConfigValue reactive = context.proceed(REACTIVE_URL);
        if (reactive == null || reactive.getValue() == null) {
            return value;
        }
        ConfigValue ssl = context.proceed(SSL_MODE);
        // The pool's trust settings too: a verify-full registry with its CA as a PEM file (RDS) stopped the server at
        // its migrations, pgjdbc looking for ~/.postgresql/root.crt.
        boolean trustAll = "true".equalsIgnoreCase(value(context, RegistryConnectOptions.TRUST_ALL));
        java.util.List<String> pems = "true".equalsIgnoreCase(value(context, RegistryConnectOptions.TRUST_PEM))
                ? java.util.Arrays.stream(String.valueOf(value(context, RegistryConnectOptions.TRUST_PEM_CERTS))
                        .split(",")).map(String::strip).filter(c -> !c.isEmpty() && !c.equals("null")).toList()
                : java.util.List.of();
        // The pool's other way to name its schema; in the URL, search_path is carried over by JdbcUrls.
        String searchPath = value(context, SEARCH_PATH);
        return JdbcUrls.fromReactive(reactive.getValue(), ssl == null ? null : ssl.getValue(), trustAll, pems)
                .map(url -> searchPath == null || searchPath.isBlank() || url.contains("currentSchema=") ? url
                        : JdbcUrls.withParam(url, "currentSchema", searchPath.strip()))
                .map(url -> reactive.from().withName(JDBC_URL).withValue(url)
                        .withConfigSourceName("derived from " + REACTIVE_URL + " (" + reactive.getConfigSourceName()
                                + ")")
                        .build())
                .orElse(value);
    }

    private static String value(ConfigSourceInterceptorContext context, String name) {
        ConfigValue v = context.proceed(name);
        return v == null ? null : v.getValue();
    }

    @Override
    public Iterator<String> iterateNames(ConfigSourceInterceptorContext context) {
        Set<String> names = new LinkedHashSet<>();
        context.iterateNames().forEachRemaining(names::add);
        ConfigValue reactive = context.proceed(REACTIVE_URL);
        if (reactive != null && reactive.getValue() != null) {
            names.add(JDBC_URL);
        }
        return names.iterator();
    }
}
