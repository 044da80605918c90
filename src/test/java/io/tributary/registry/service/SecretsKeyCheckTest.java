package io.tributary.registry.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.registry.store.ConnectionRow;
import io.tributary.registry.store.SecretsKeyCheckStore;
import io.tributary.security.SecretCipher;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Base64;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every process of one registry must hold its secrets key. A process with another key stops at start-up, naming
 * TRIBUTARY_SECRETS_KEY (before: it started, failed each stream reading a stored secret, and sealed what was put
 * through it with a key no other process had). A registry from before the check is judged by its stored secrets.
 */
class SecretsKeyCheckTest {
    private static EmbeddedPostgres postgres;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = EmbeddedPostgres.builder().setDataDirectory(Files.createTempDirectory("tributary-keycheck-"))
                .start();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        postgres.close();
    }

    @Test
    void theFirstProcessSetsTheKeyAndAnotherKeyStopsAtStartUp() throws Exception {
        SecretsKeyCheckStore store = new SecretsKeyCheckStore(freshRegistry("keys_first"));
        SecretCipher key = cipher();
        SecretsKeyCheck.check(store, key);
        assertThat(store.read()).isPresent();
        assertThatCode(() -> SecretsKeyCheck.check(store, key)).doesNotThrowAnyException();

        assertThatThrownBy(() -> SecretsKeyCheck.check(store, cipher())).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("TRIBUTARY_SECRETS_KEY is not the key this registry database's secrets are "
                        + "sealed with")
                .hasMessageContaining("DELETE FROM secrets_key_check");
    }

    @Test
    void aRegistryFromBeforeTheCheckIsJudgedByItsStoredSecrets() throws Exception {
        DataSource registry = freshRegistry("keys_older");
        SecretCipher key = cipher();
        try (Connection c = registry.getConnection(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO connections (name, connection_type, options, password, owner, created_at) "
                        + "VALUES ('kafka', 'KAFKA', '{}', ?, 'alice', now())")) {
            s.setBytes(1, key.encrypt("hunter2", ConnectionRow.associatedData("kafka")));
            s.executeUpdate();
        }
        SecretsKeyCheckStore store = new SecretsKeyCheckStore(registry);
        assertThatThrownBy(() -> SecretsKeyCheck.check(store, cipher())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("TRIBUTARY_SECRETS_KEY");
        assertThat(store.read()).as("a wrong key records nothing").isEmpty();

        SecretsKeyCheck.check(store, key);
        assertThat(store.read()).isPresent();
    }

    private static SecretCipher cipher() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return new SecretCipher(Optional.of(Base64.getEncoder().encodeToString(key)), false, "/nonexistent");
    }

    private static DataSource freshRegistry(String name) throws Exception {
        try (var c = postgres.getPostgresDatabase().getConnection(); var s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        DataSource db = postgres.getDatabase("postgres", name);
        Flyway.configure().dataSource(db).locations("classpath:db/migration").load().migrate();
        return db;
    }
}
