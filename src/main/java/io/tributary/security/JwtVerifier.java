package io.tributary.security;

import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import org.jose4j.jwt.MalformedClaimException;
import org.jose4j.jwt.consumer.InvalidJwtException;
import org.jose4j.jwt.consumer.JwtConsumer;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;

/** Verifies JWTs signed by one issuer's RSA or EC key; the principal is the {@code sub} claim. */
final class JwtVerifier {
    private final JwtConsumer consumer;

    JwtVerifier(String issuer, String publicKeyPem) {
        this.consumer = new JwtConsumerBuilder()
                .setRequireExpirationTime()
                .setAllowedClockSkewInSeconds(30)
                .setRequireSubject()
                .setExpectedIssuer(issuer)
                .setSkipDefaultAudienceValidation()
                .setVerificationKey(parsePublicKey(publicKeyPem))
                .build();
    }

    /** @return the subject, or null when the token is not valid */
    String subject(String token) {
        try {
            return consumer.processToClaims(token).getSubject();
        } catch (InvalidJwtException | MalformedClaimException e) {
            return null;
        }
    }

    static PublicKey parsePublicKey(String pem) {
        String base64 = pem.replaceAll("-----(BEGIN|END) PUBLIC KEY-----", "").replaceAll("\\s", "");
        byte[] der;
        try {
            der = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("tributary.auth.jwt.public-key is not a PEM public key: set the issuer's "
                    + "'-----BEGIN PUBLIC KEY-----' block (X.509 SubjectPublicKeyInfo)");
        }
        for (String algorithm : new String[] {"RSA", "EC"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePublic(new X509EncodedKeySpec(der));
            } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
                // try the next algorithm
            }
        }
        throw new IllegalStateException("tributary.auth.jwt.public-key is neither an RSA nor an EC public key");
    }
}
