package io.tributary.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.Optional;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.junit.jupiter.api.Test;

class AuthenticatorTest {
    static final KeyPair ISSUER = rsa();
    static final KeyPair STRANGER = rsa();

    private static Authenticator tokens(String tokens, String admins) {
        return new Authenticator(Optional.of(tokens), Optional.empty(), Optional.empty(), Optional.ofNullable(admins));
    }

    @Test
    void bearerTokensNameTheirPrincipal() {
        Authenticator auth = tokens("alice=tokA, bob=tokB", "bob");
        assertThat(auth.authOff()).isFalse();
        assertThat(auth.authenticate("Bearer tokA")).isEqualTo(new Principal("alice", false));
        assertThat(auth.authenticate("bearer   tokB")).isEqualTo(new Principal("bob", true));
    }

    @Test
    void missingOrWrongCredentialsAreRejectedWithoutEchoingThem() {
        Authenticator auth = tokens("alice=tokA", null);
        assertThatThrownBy(() -> auth.authenticate(null)).isInstanceOf(UnauthenticatedException.class);
        assertThatThrownBy(() -> auth.authenticate("Bearer tokAA")).isInstanceOf(UnauthenticatedException.class)
                .hasMessageNotContaining("tokAA");
        assertThatThrownBy(() -> auth.authenticate("Bearer tok")).isInstanceOf(UnauthenticatedException.class);
        assertThatThrownBy(() -> auth.authenticate("Basic tokA")).isInstanceOf(UnauthenticatedException.class);
        assertThatThrownBy(() -> auth.authenticate("tokA")).isInstanceOf(UnauthenticatedException.class);
    }

    @Test
    void malformedTokenConfigurationFailsWithoutEchoingTokens() {
        assertThatThrownBy(() -> tokens("alice=tokA,bobsecret", null)).hasMessageContaining("entry 2")
                .hasMessageNotContaining("tokA").hasMessageNotContaining("bobsecret");
    }

    @Test
    void withNeitherTokensNorIssuerEveryoneIsTheLocalAdmin() {
        Authenticator auth = new Authenticator(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
        assertThat(auth.authOff()).isTrue();
        assertThat(auth.authenticate(null)).isEqualTo(new Principal("local", true));
        assertThat(auth.authenticate("Bearer whatever")).isEqualTo(new Principal("local", true));
    }

    @Test
    void jwtsOfTheIssuerAreVerified() throws Exception {
        Authenticator auth = new Authenticator(Optional.empty(), Optional.of("https://issuer.example"),
                Optional.of(pem(ISSUER)), Optional.of("carol"));
        assertThat(auth.authenticate("Bearer " + jwt(ISSUER, "https://issuer.example", "carol", 5)))
                .isEqualTo(new Principal("carol", true));
        assertThat(auth.authenticate("Bearer " + jwt(ISSUER, "https://issuer.example", "dave", 5)))
                .isEqualTo(new Principal("dave", false));
        assertThatThrownBy(() -> auth.authenticate("Bearer " + jwt(ISSUER, "https://other.example", "dave", 5)))
                .isInstanceOf(UnauthenticatedException.class);
        assertThatThrownBy(() -> auth.authenticate("Bearer " + jwt(STRANGER, "https://issuer.example", "dave", 5)))
                .isInstanceOf(UnauthenticatedException.class);
        assertThatThrownBy(() -> auth.authenticate("Bearer " + jwt(ISSUER, "https://issuer.example", "dave", -5)))
                .isInstanceOf(UnauthenticatedException.class);
        assertThatThrownBy(() -> auth.authenticate("Bearer a.b.c")).isInstanceOf(UnauthenticatedException.class);
    }

    @Test
    void anIssuerWithoutKeyIsAConfigurationError() {
        assertThatThrownBy(() -> new Authenticator(Optional.empty(), Optional.of("https://i"), Optional.empty(),
                Optional.empty())).hasMessageContaining("TRIBUTARY_AUTH_JWT_PUBLIC_KEY");
        assertThatThrownBy(() -> new Authenticator(Optional.empty(), Optional.of("https://i"),
                Optional.of("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"), Optional.empty()))
                .hasMessageContaining("public key");
    }

    static String jwt(KeyPair key, String issuer, String subject, int expiresInMinutes) throws Exception {
        JwtClaims claims = new JwtClaims();
        claims.setIssuer(issuer);
        claims.setSubject(subject);
        claims.setExpirationTimeMinutesInTheFuture(expiresInMinutes);
        claims.setIssuedAtToNow();
        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(claims.toJson());
        jws.setKey(key.getPrivate());
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
        return jws.getCompactSerialization();
    }

    static String pem(KeyPair key) {
        return "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder().encodeToString(key.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
    }

    private static KeyPair rsa() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            return g.generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
