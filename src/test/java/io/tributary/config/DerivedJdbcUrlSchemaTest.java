package io.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A registry in a schema of its own, named the reactive client's way ({@code ?search_path=} in
 * {@code QUARKUS_DATASOURCE_REACTIVE_URL}, or {@code quarkus.datasource.reactive.additional-properties.search_path}):
 * the derived JDBC URL (migrations, locks) must use that schema too. It did not (pgjdbc names it
 * {@code currentSchema}): the packaged server migrated into {@code public}, answered ready, and answered every API call
 * 500 "relation streams does not exist".
 */
class DerivedJdbcUrlSchemaTest {
    private static final String ADMIN = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
    private final String db = "schema_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);

    @BeforeEach
    void create() throws Exception {
        admin("postgres", "CREATE DATABASE " + db);
        admin(db, "CREATE SCHEMA tributary");
    }

    @AfterEach
    void drop() throws Exception {
        admin("postgres", "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
    }

    private static String currentSchema(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT current_schema()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void aSearchPathInTheReactiveUrlIsTheJdbcSchemaToo() throws Exception {
        String url = DerivedJdbcUrlTlsTest.derived(Map.of("quarkus.datasource.reactive.url",
                "postgresql://127.0.0.1:5432/" + db + "?search_path=tributary"));
        assertThat(currentSchema(url)).isEqualTo("tributary");
    }

    @Test
    void aSearchPathAmongThePoolsPropertiesIsTheJdbcSchemaToo() throws Exception {
        String url = DerivedJdbcUrlTlsTest.derived(Map.of(
                "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:5432/" + db,
                "quarkus.datasource.reactive.additional-properties.search_path", "tributary"));
        assertThat(currentSchema(url)).isEqualTo("tributary");
    }

    @Test
    void withoutOneTheDatabasesDefaultStays() throws Exception {
        assertThat(currentSchema(DerivedJdbcUrlTlsTest.derived(Map.of("quarkus.datasource.reactive.url",
                "postgresql://127.0.0.1:5432/" + db)))).isEqualTo("public");
    }

    private static void admin(String database, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(ADMIN.replace("/postgres?", "/" + database + "?"));
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
