package io.tributary.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A function follows no stream lifecycle channel (the server's runtime, its listener among them, lives in
 * {@code src/server}, which no function build compiles): after start-up no session of the registry database LISTENs. And a function,
 * like the server, needs only the reactive URL of the registry (SPEC 6): the test services set no JDBC URL, so the
 * one the function uses is derived from it.
 */
@Tag("quarkus")
@QuarkusTest
class NoLifecycleChannelTest {

    @Inject
    DataSource database;

    @Test
    void noLifecycleListenerAtStartUp() throws Exception {
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'LISTEN %'")) {
            r.next();
            assertThat(r.getLong(1)).isZero();
        }
    }

    @Test
    void jdbcUrlIsDerivedFromTheReactiveUrl() {
        var config = ConfigProvider.getConfig();
        assertThat(config.getConfigValue("quarkus.datasource.jdbc.url").getSourceName())
                .startsWith("derived from quarkus.datasource.reactive.url");
        assertThat(config.getValue("quarkus.datasource.jdbc.url", String.class))
                .isEqualTo("jdbc:" + config.getValue("quarkus.datasource.reactive.url", String.class));
    }
}
