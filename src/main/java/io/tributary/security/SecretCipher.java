package io.tributary.security;

import io.quarkus.runtime.Startup;
import io.tributary.config.LocalMode;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * AES-256-GCM for secret values and connection passwords. Each value gets a fresh random 96-bit nonce, stored in front
 * of the ciphertext; the associated data binds a ciphertext to the row it belongs to, so rows cannot be swapped.
 * The key comes from {@code tributary.secrets-key} (TRIBUTARY_SECRETS_KEY); in local mode it is generated once under
 * the data directory and reused.
 */
@Startup // a missing or bad key fails the start, not the first secret
@ApplicationScoped
public class SecretCipher {
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final String KEY_FILE = "secrets.key";

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();

    @Inject
    public SecretCipher(
            @ConfigProperty(name = "tributary.secrets-key") Optional<String> configuredKey,
            @ConfigProperty(name = "tributary.local", defaultValue = "false") boolean local,
            @ConfigProperty(name = LocalMode.DATA_DIR, defaultValue = LocalMode.DEFAULT_DATA_DIR) String dataDir) {
        this(loadKey(configuredKey, local, Path.of(dataDir)));
    }

    SecretCipher(byte[] key) {
        this.key = new SecretKeySpec(key, "AES");
    }

    public byte[] encrypt(String plaintext, String associatedData) {
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(associatedData.getBytes(StandardCharsets.UTF_8));
            byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("encrypting a secret failed (" + e.getClass().getSimpleName() + ")");
        }
    }

    public String decrypt(byte[] stored, String associatedData) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, stored, 0, NONCE_BYTES));
            cipher.updateAAD(associatedData.getBytes(StandardCharsets.UTF_8));
            byte[] plain = cipher.doFinal(stored, NONCE_BYTES, stored.length - NONCE_BYTES);
            return new String(plain, StandardCharsets.UTF_8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("a stored secret does not decrypt under the configured "
                    + "TRIBUTARY_SECRETS_KEY: the key changed since the secret was written");
        }
    }

    static byte[] loadKey(Optional<String> configuredKey, boolean local, Path dataDir) {
        Optional<String> text = configuredKey.filter(s -> !s.isBlank());
        if (text.isPresent()) {
            return decodeKey(text.get().trim(), "TRIBUTARY_SECRETS_KEY");
        }
        if (!local) {
            throw new IllegalStateException("TRIBUTARY_SECRETS_KEY (tributary.secrets-key) is not set: set it to a "
                    + "base64-encoded 256-bit key, e.g. the output of 'openssl rand -base64 32'");
        }
        Path file = dataDir.resolve(KEY_FILE);
        try {
            if (Files.exists(file)) {
                return decodeKey(Files.readString(file).trim(), file.toString());
            }
            Files.createDirectories(dataDir);
            byte[] fresh = new byte[32];
            new SecureRandom().nextBytes(fresh);
            Path tmp = Files.createTempFile(dataDir, KEY_FILE, ".tmp");
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system; the data directory's own permissions apply
            }
            Files.writeString(tmp, Base64.getEncoder().encodeToString(fresh));
            Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return fresh;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the local secrets key " + file, e);
        }
    }

    private static byte[] decodeKey(String base64, String origin) {
        byte[] key;
        try {
            key = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(origin + " is not valid base64: set a base64-encoded 256-bit key");
        }
        if (key.length != 32) {
            throw new IllegalStateException(origin + " decodes to " + key.length + " bytes: a 256-bit key is 32 bytes "
                    + "(e.g. 'openssl rand -base64 32')");
        }
        return key;
    }
}
