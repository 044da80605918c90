package io.tributary.registry.service;

import io.quarkus.runtime.StartupEvent;
import io.tributary.registry.store.SecretsKeyCheckStore;
import io.tributary.security.SecretCipher;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Stops a process whose {@code TRIBUTARY_SECRETS_KEY} is not the key of its registry's secrets, at start-up. Every
 * server and function of one registry must hold the same key; one with another key would otherwise start, fail every
 * stream that reads a connection password or secret (each with its own message), and seal what was put through it
 * with a key no other process has, so that the others then failed on those. The first process seals a known text
 * and records it; every start after that must open it. Runs in every runtime: one query per start.
 */
@ApplicationScoped
public class SecretsKeyCheck {
    private static final String TEXT = "tributary secrets key check";
    private static final String ASSOCIATED_DATA = "secrets-key-check";

    @Inject
    SecretCipher cipher;
    @Inject
    DataSource registry;

    // After the registry's migrations (priority 0).
    void check(@Observes @Priority(1) StartupEvent event) {
        check(new SecretsKeyCheckStore(registry), cipher);
    }

    static void check(SecretsKeyCheckStore store, SecretCipher cipher) {
        Optional<byte[]> recorded = store.read();
        if (recorded.isEmpty()) {
            // A new registry, or one from before the check: its stored secrets, if any, say which key it has.
            store.anySealed().ifPresent(s -> require(cipher, s.value(), s.associatedData()));
            store.recordIfAbsent(cipher.encrypt(TEXT, ASSOCIATED_DATA));
            recorded = store.read(); // another process starting at the same time may have won, with its key
        }
        require(cipher, recorded.orElseThrow(), ASSOCIATED_DATA);
    }

    private static void require(SecretCipher cipher, byte[] sealed, String associatedData) {
        try {
            cipher.decrypt(sealed, associatedData);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("TRIBUTARY_SECRETS_KEY is not the key this registry database's secrets "
                    + "are sealed with: every server and function of one registry needs the same key (README "
                    + "\"Running several servers\"); with another one this process could read no stored secret or "
                    + "connection password, and what it stored no other process could read. If the registry's key is "
                    + "lost, its secrets cannot be read any more: delete them and the check (DELETE FROM "
                    + "secrets_key_check), then put them again");
        }
    }
}
