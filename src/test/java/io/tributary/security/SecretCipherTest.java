package io.tributary.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretCipherTest {
    static final byte[] KEY = new byte[32];

    @Test
    void roundTripsWithAFreshNonceEachTime() {
        SecretCipher cipher = new SecretCipher(KEY);
        byte[] a = cipher.encrypt("top-secret", "secret:s/k");
        byte[] b = cipher.encrypt("top-secret", "secret:s/k");
        assertThat(a).isNotEqualTo(b);
        assertThat(a).hasSize(12 + "top-secret".length() + 16);
        assertThat(new String(a)).doesNotContain("top-secret");
        assertThat(cipher.decrypt(a, "secret:s/k")).isEqualTo("top-secret");
        assertThat(cipher.decrypt(b, "secret:s/k")).isEqualTo("top-secret");
    }

    @Test
    void aCiphertextMovedToAnotherRowOrKeyDoesNotDecrypt() {
        SecretCipher cipher = new SecretCipher(KEY);
        byte[] sealed = cipher.encrypt("top-secret", "secret:s/k");
        assertThatThrownBy(() -> cipher.decrypt(sealed, "secret:s/other"))
                .hasMessageNotContaining("top-secret").hasMessageContaining("TRIBUTARY_SECRETS_KEY");
        byte[] otherKey = new byte[32];
        otherKey[0] = 1;
        assertThatThrownBy(() -> new SecretCipher(otherKey).decrypt(sealed, "secret:s/k"))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void localModeGeneratesTheKeyOnceAndReusesIt(@TempDir Path dir) throws Exception {
        byte[] first = SecretCipher.loadKey(Optional.empty(), true, dir);
        byte[] second = SecretCipher.loadKey(Optional.empty(), true, dir);
        assertThat(first).hasSize(32).isEqualTo(second);
        assertThat(Files.readString(dir.resolve("secrets.key")).trim())
                .isEqualTo(Base64.getEncoder().encodeToString(first));
    }

    @Test
    void aConfiguredKeyWinsAndBadKeysAreExplainedWithoutEchoingThem() {
        String configured = Base64.getEncoder().encodeToString(new byte[32]);
        assertThat(SecretCipher.loadKey(Optional.of(configured), false, Path.of("unused"))).isEqualTo(new byte[32]);
        assertThatThrownBy(() -> SecretCipher.loadKey(Optional.empty(), false, Path.of("unused")))
                .hasMessageContaining("TRIBUTARY_SECRETS_KEY").hasMessageContaining("openssl rand -base64 32");
        String short16 = Base64.getEncoder().encodeToString("sixteen-byte-key".getBytes());
        assertThatThrownBy(() -> SecretCipher.loadKey(Optional.of(short16), false, Path.of("unused")))
                .hasMessageContaining("16 bytes").hasMessageNotContaining(short16);
        assertThatThrownBy(() -> SecretCipher.loadKey(Optional.of("not base64 at all!"), false, Path.of("unused")))
                .hasMessageContaining("base64").hasMessageNotContaining("not base64 at all!");
    }
}
