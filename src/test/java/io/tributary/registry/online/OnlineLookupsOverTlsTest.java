package io.tributary.registry.online;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.config.OnlineConfig;
import io.tributary.online.SyncState.StoredColumn;
import io.tributary.testing.OnlineConfigs;
import io.tributary.testing.TlsOnlyPostgres;
import io.vertx.mutiny.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A separate online database ({@code TRIBUTARY_ONLINE_JDBC_URL}) that takes TLS connections only, named by the JDBC
 * URLs people write for pgjdbc: the syncs connect through pgjdbc, the lookups through the reactive client, and both
 * must connect as the URL says. Before, the lookups read {@code sslmode} alone: with no TLS parameter (pgjdbc then
 * prefers TLS) or {@code ssl=true} they went without TLS and were refused; with {@code sslmode=verify-full} they failed
 * for want of a hostname check and trust options, while the syncs worked.
 */
class OnlineLookupsOverTlsTest {
    static Vertx vertx;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        vertx.closeAndAwait();
    }

    @Test
    void aLookupConnectsAsTheSyncsDo() throws Exception {
        java.util.Map<String, String> failed = new java.util.LinkedHashMap<>();
        for (String parameters : List.of("", "?sslmode=require", "?sslmode=verify-full&sslrootcert=%s",
                "?ssl=true&sslrootcert=%s", "?sslmode=verify-ca&sslrootcert=%s",
                "?ssl=true&sslfactory=org.postgresql.ssl.NonValidatingFactory")) {
            try {
                TlsOnlyPostgres db = TlsOnlyPostgres.shared();
                lookUp("jdbc:postgresql://127.0.0.1:" + db.port() + "/postgres"
                        + parameters.formatted(db.certificate()));
            } catch (Exception | AssertionError e) {
                failed.put(parameters, e.toString());
            }
        }
        assertThat(failed).as("JDBC URL parameters whose lookups failed").isEmpty();
    }

    /** pgjdbc's default, {@code prefer}, falls back to a plain connection where the database has no TLS. */
    @Test
    void aLookupWithoutTlsParametersReachesADatabaseWithoutTls() throws Exception {
        lookUp("jdbc:postgresql://127.0.0.1:5432/postgres");
    }

    /** The reactive parser's own message quotes the whole URL: a password must not reach the log that way. */
    @Test
    void aUrlTheLookupsCannotReadIsRefusedNamingTheSettingWithoutItsPassword() {
        OnlineConfig config = OnlineConfigs.separate("postgresql://bob:hunter2@a.example:5432,b.example:5432/db",
                "postgres");
        OnlineDatabase online = new OnlineDatabase(null, config, null);
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new OnlineReads(config, online, vertx,
                    Optional.empty(), Optional.empty(), Optional.empty(), null))
                    .hasMessageContaining("tributary.online.jdbc-url").hasMessageContaining("a.example")
                    .hasMessageNotContaining("hunter2");
        } finally {
            online.onShutdown(null);
        }
    }

    private void lookUp(String url) throws Exception {
        OnlineConfig config = OnlineConfigs.separate(url, "postgres");
        OnlineDatabase online = new OnlineDatabase(null, config, null);
        OnlineReads reads = new OnlineReads(config, online, vertx, Optional.empty(), Optional.empty(),
                Optional.empty(), null);
        String table = "tls_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
        try {
            try (Connection c = online.store().connection(); Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA IF NOT EXISTS tributary_online");
                s.execute("CREATE TABLE tributary_online." + table + " (k text PRIMARY KEY, v bigint)");
                s.execute("INSERT INTO tributary_online." + table + " VALUES ('a', 7)");
            }
            String statement = reads.statement(table, List.of(new StoredColumn("k", "text"),
                    new StoredColumn("v", "bigint")), List.of(new StoredColumn("k", "text")), 1);
            byte[] body = reads.lookup(statement, 1, List.<String[]>of(new String[] {"a"})).await()
                    .atMost(Duration.ofSeconds(20));
            assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo("{\"rows\":[{\"k\":\"a\",\"v\":7}]}");
        } finally {
            reads.onShutdown(null);
            try (Connection c = online.store().connection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS tributary_online." + table);
            }
            online.onShutdown(null);
        }
    }
}
