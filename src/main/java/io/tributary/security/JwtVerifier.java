package io.tributary.security;

import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import org.jose4j.jwt.MalformedClaimException;
import org.jose4j.jwt.consumer.ErrorCodes;
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

    /**
     * @return the subject
     * @throws UnauthenticatedException saying why the token is refused (expired, another issuer, a bad signature), as
     *                                  RFC 6750's error_description does; the token itself is never quoted
     */
    String subject(String token) {
        try {
            return consumer.processToClaims(token).getSubject();
        } catch (InvalidJwtException e) {
            throw new UnauthenticatedException("invalid JWT: " + reason(e));
        } catch (MalformedClaimException e) {
            throw new UnauthenticatedException("invalid JWT: its sub claim is not a string");
        }
    }

    private static String reason(InvalidJwtException e) {
        if (e.hasExpired()) {
            return "it has expired; get a new token from the issuer";
        }
        if (e.hasErrorCode(ErrorCodes.ISSUER_INVALID) || e.hasErrorCode(ErrorCodes.ISSUER_MISSING)) {
            return "its issuer (iss) is not the one this server trusts (TRIBUTARY_AUTH_JWT_ISSUER)";
        }
        if (e.hasErrorCode(ErrorCodes.SIGNATURE_INVALID)) {
            return "its signature does not verify with the issuer's key (TRIBUTARY_AUTH_JWT_PUBLIC_KEY)";
        }
        if (e.hasErrorCode(ErrorCodes.EXPIRATION_MISSING)) {
            return "it has no expiration time (exp)";
        }
        if (e.hasErrorCode(ErrorCodes.SUBJECT_MISSING)) {
            return "it has no subject (sub)";
        }
        if (e.hasErrorCode(ErrorCodes.NOT_YET_VALID)) {
            return "it is not valid yet (nbf)";
        }
        return "it is malformed or not signed with the issuer's key";
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
