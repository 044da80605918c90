package io.tributary.registry.online;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.testing.OnlineConfigs;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A separate online database ({@code tributary.online.jdbc-url}) on the machine's PostgreSQL, restarted under the
 * server: once it answers again, syncs and lookups work again without a server restart.
 */
class SeparateOnlineDatabaseTest {
    private static final String ADMIN = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
    private final String name = "online_sep_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
    private OnlineDatabase online;

    @BeforeEach
    void create() throws Exception {
        admin("CREATE DATABASE " + name);
        online = new OnlineDatabase(null, OnlineConfigs.separate("jdbc:postgresql://127.0.0.1:5432/" + name,
                "postgres"), null);
    }

    @AfterEach
    void drop() throws Exception {
        if (online != null) {
            online.onShutdown(null);
        }
        admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    @Test
    void theOnlineDatabaseRestartedUnderThePoolIsUsedAgainOnceItAnswers() throws Exception {
        assertThat(selectOne()).isEqualTo(1);
        // What a restart does to the pool's idle connections: the server ends them.
        admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "'");
        Thread.sleep(Duration.ofSeconds(3).toMillis());
        assertThat(selectOne()).as("the first statement after the database came back").isEqualTo(1);
        assertThat(selectOne()).isEqualTo(1);
    }

    /**
     * The registry's setting is a {@code postgresql://} URL; the same form for this one failed the server's start with
     * pgjdbc's "No suitable driver", naming no setting.
     */
    @Test
    void aPostgresqlUrlInTheRegistrysFormIsTakenAndAnythingElseIsRefusedNamingTheSetting() throws Exception {
        online.onShutdown(null);
        online = new OnlineDatabase(null, OnlineConfigs.separate("postgresql://127.0.0.1:5432/" + name, "postgres"),
                null);
        assertThat(selectOne()).isEqualTo(1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new OnlineDatabase(null,
                OnlineConfigs.separate("mysql://bob:hunter2@127.0.0.1:3306/" + name + "?password=secret", "postgres"),
                null)).hasMessageContaining("TRIBUTARY_ONLINE_JDBC_URL").hasMessageContaining("jdbc:postgresql://")
                .hasMessageContaining("mysql://127.0.0.1:3306/").hasMessageNotContaining("secret")
                .hasMessageNotContaining("hunter2");
        OnlineDatabase withUserInfo = new OnlineDatabase(null, OnlineConfigs.separate(
                "postgresql://postgres:hunter2@127.0.0.1:5432/" + name, "postgres"), null);
        try {
            assertThat(withUserInfo.where()).contains("postgresql://127.0.0.1:5432/").doesNotContain("hunter2");
        } finally {
            withUserInfo.onShutdown(null);
        }
    }

    private int selectOne() throws Exception {
        try (Connection c = online.store().connection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static void admin(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(ADMIN); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
