package io.tributary.registry.store;

import java.util.Optional;
import javax.sql.DataSource;

/** The registry's secrets key check (table {@code secrets_key_check}) and a sample of what that key sealed. */
public final class SecretsKeyCheckStore {

    /** A value sealed with the registry's key, with the associated data it was sealed under. */
    public record Sealed(byte[] value, String associatedData) {}

    private final Jdbc jdbc;

    public SecretsKeyCheckStore(DataSource database) {
        this.jdbc = new Jdbc(database, "the secrets key check");
    }

    public Optional<byte[]> read() {
        return jdbc.first("SELECT sealed FROM secrets_key_check", rs -> rs.getBytes(1));
    }

    /** Records the check unless one is recorded already (another process starting at the same time won). */
    public void recordIfAbsent(byte[] sealed) {
        jdbc.update("INSERT INTO secrets_key_check (sealed) VALUES (?) ON CONFLICT DO NOTHING", sealed);
    }

    /** One stored secret or connection password, if any: what a registry from before the check was sealed with. */
    public Optional<Sealed> anySealed() {
        Optional<Sealed> secret = jdbc.first("SELECT value, scope, secret_key FROM secrets LIMIT 1",
                rs -> new Sealed(rs.getBytes(1), SecretRow.associatedData(rs.getString(2), rs.getString(3))));
        if (secret.isPresent()) {
            return secret;
        }
        return jdbc.first("SELECT password, name FROM connections WHERE password IS NOT NULL LIMIT 1",
                rs -> new Sealed(rs.getBytes(1), ConnectionRow.associatedData(rs.getString(2))));
    }
}
