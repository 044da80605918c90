package io.tributary.registry.service;

import io.tributary.registry.store.SecretsKeyCheckStore;
import io.tributary.security.SecretCipher;
import java.util.Optional;

/**
 * Whether this process's {@code TRIBUTARY_SECRETS_KEY} is the key of its registry's secrets. Every process of one
 * registry must hold the same key; one with another key would start, fail every stream that reads a connection
 * password or secret (each with its own message), and seal what was put through it with a key no other process has,
 * so that the others then failed on those. The first process seals a known text and records it; every check after
 * that must open it. The server runs it at start-up ({@code server.SharedSettings}); the functions do not, since they
 * all read one Secrets Manager secret and cannot disagree, and a key replaced there would otherwise take down every
 * function rather than the secrets alone.
 */
public final class SecretsKeyCheck {
    private static final String TEXT = "tributary secrets key check";
    private static final String ASSOCIATED_DATA = "secrets-key-check";

    private SecretsKeyCheck() {}

    /** @throws IllegalStateException naming TRIBUTARY_SECRETS_KEY when the key is not the registry's */
    public static void check(SecretsKeyCheckStore store, SecretCipher cipher) {
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
                    + "are sealed with: every server of one registry needs the same key (README "
                    + "\"Running several servers\"); with another one this process could read no stored secret or "
                    + "connection password, and what it stored no other process could read. If the registry's key is "
                    + "lost, its secrets cannot be read any more: delete them and the check (DELETE FROM "
                    + "secrets_key_check), then put them again");
        }
    }
}
