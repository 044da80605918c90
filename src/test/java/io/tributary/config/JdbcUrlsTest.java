package io.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JdbcUrlsTest {

    @Test
    void plainUrlGainsTheJdbcScheme() {
        assertThat(JdbcUrls.fromReactive("postgresql://db.example:5432/tributary", null))
                .hasValue("jdbc:postgresql://db.example:5432/tributary");
        assertThat(JdbcUrls.fromReactive(" postgres://127.0.0.1/registry ", null))
                .hasValue("jdbc:postgresql://127.0.0.1/registry");
        assertThat(JdbcUrls.fromReactive("vertx-reactive:postgresql://h:6543/d", null))
                .hasValue("jdbc:postgresql://h:6543/d");
    }

    @Test
    void withoutDatabaseTheServersDefaultIsKept() {
        assertThat(JdbcUrls.fromReactive("postgresql://h:5432", null)).hasValue("jdbc:postgresql://h:5432/");
    }

    @Test
    void queryParametersAreKept() {
        assertThat(JdbcUrls.fromReactive("postgresql://h/d?sslmode=require&application_name=t", "disable"))
                .hasValue("jdbc:postgresql://h/d?sslmode=require&application_name=t");
    }

    @Test
    void reactiveSslModeBecomesSslmode() {
        assertThat(JdbcUrls.fromReactive("postgresql://proxy.rds:5432/tributary", "REQUIRE"))
                .hasValue("jdbc:postgresql://proxy.rds:5432/tributary?sslmode=require");
        assertThat(JdbcUrls.fromReactive("postgresql://h/d?connectTimeout=5", "verify-full"))
                .hasValue("jdbc:postgresql://h/d?connectTimeout=5&sslmode=verify-full");
    }

    @Test
    void userInfoBecomesParameters() {
        assertThat(JdbcUrls.fromReactive("postgresql://bob:p%40ss@h:5432/d", null))
                .hasValue("jdbc:postgresql://h:5432/d?user=bob&password=p%40ss");
        assertThat(JdbcUrls.fromReactive("postgresql://bob@h/d?password=x", null))
                .hasValue("jdbc:postgresql://h/d?password=x&user=bob");
    }

    @Test
    void firstOfSeveralHostsAndIpv6() {
        assertThat(JdbcUrls.fromReactive("postgresql://a:5432/d,postgresql://b:5432/d", null))
                .hasValue("jdbc:postgresql://a:5432/d");
        assertThat(JdbcUrls.fromReactive("postgresql://[::1]:5432/d", null))
                .hasValue("jdbc:postgresql://[::1]:5432/d");
    }

    @Test
    void otherUrlsDeriveNothing() {
        assertThat(JdbcUrls.fromReactive(null, null)).isEmpty();
        assertThat(JdbcUrls.fromReactive("mysql://h/d", null)).isEmpty();
        assertThat(JdbcUrls.fromReactive("postgresql:///d", null)).isEmpty();
    }
}
