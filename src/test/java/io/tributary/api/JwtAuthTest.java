package io.tributary.api;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.ValidatableResponse;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Map;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * JWTs at the server's real HTTP endpoint (SPEC 3): one of the configured issuer, signed with its key and not expired,
 * is its subject; an expired one, one from another issuer and one signed by another key are each a 401
 * {@code UNAUTHENTICATED} that says why, with {@code WWW-Authenticate: Bearer}, never quoting the token. On AWS, API
 * Gateway's JWT authorizer makes the same checks before stream-api runs, so this is the server's own verifier only.
 */
@Tag("quarkus")
@Tag("server-only")
@QuarkusTest
@TestProfile(JwtAuthTest.WithIssuer.class)
class JwtAuthTest {
    static final String ISSUER = "https://issuer.example";
    // Throwaway P-256 keys made for this test only (openssl ecparam -name prime256v1): fixed, because the profile and
    // the test class are loaded by different class loaders and a key generated in a static field would differ.
    static final String ISSUER_PRIVATE = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgIXzaJZ654zGsRqkBRD+eC2138w75jqizX"
            + "UHvf7eDaGWhRANCAAQ4KkepqdhpDtCoMHghrwTE9/+LKy2COTFNfc0NJKph6ibfSw0w2hC5oavkYAFx5CGGMG6zCg1xCuYGSLaLDJZv";
    static final String ISSUER_PUBLIC = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEOCpHqanYaQ7QqDB4Ia8ExPf/iystgjkxTX3NDSSqYeom"
            + "30sNMNoQuaGr5GABceQhhjBuswoNcQrmBki2iwyWbw==";
    static final String OTHER_PRIVATE = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgK5/0GuUBeot3d06PdHuKIU0Uk+a5lMtRl"
            + "caJTPBL4tChRANCAAQ2dky440PwOGymJWr1BKpKJUD/TWNZHZGBzef0PlRqTYyh8SaztZIrPAk5TrBv0Pmkj0qhICdsGbkyEJKX/8Jk";

    public static class WithIssuer implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("tributary.auth.jwt.issuer", ISSUER,
                    "tributary.auth.jwt.public-key", "-----BEGIN PUBLIC KEY-----\n" + ISSUER_PUBLIC
                            + "\n-----END PUBLIC KEY-----\n");
        }
    }

    private static ValidatableResponse list(String token) {
        return given().header("Authorization", "Bearer " + token).get("/api/2.0/connections").then();
    }

    private static void refused(String token, String why) {
        list(token).statusCode(401).header("WWW-Authenticate", "Bearer")
                .body("error_code", equalTo("UNAUTHENTICATED"))
                .body("message", containsString(why))
                .body(not(containsString(token)));
    }

    @Test
    void aValidJwtOfTheIssuerIsItsSubject() throws Exception {
        list(jwt(ISSUER_PRIVATE, ISSUER, "dana", 300)).statusCode(200);
        // The owner of what it creates is the token's subject.
        given().header("Authorization", "Bearer " + jwt(ISSUER_PRIVATE, ISSUER, "dana", 300))
                .contentType("application/json")
                .body("{\"name\": \"" + io.tributary.testing.Api.unique("jwt") + "\", \"connection_type\": "
                        + "\"KAFKA\", \"options\": {\"bootstrap_servers\": \"127.0.0.1:9\"}}")
                .post("/api/2.0/connections").then().statusCode(200).body("owner", equalTo("dana"));
    }

    @Test
    void anExpiredJwtIsA401() throws Exception {
        // Ten minutes ago: well past the verifier's 30 s clock skew.
        refused(jwt(ISSUER_PRIVATE, ISSUER, "dana", -600), "expired");
    }

    @Test
    void aJwtFromAnotherIssuerIsA401() throws Exception {
        refused(jwt(ISSUER_PRIVATE, "https://other.example", "dana", 300), "issuer");
        // Another issuer with its own key, claiming to be ours: the signature gives it away.
        refused(jwt(OTHER_PRIVATE, ISSUER, "dana", 300), "signature");
    }

    @Test
    void anUnsignedOrMangledJwtIsA401() throws Exception {
        String valid = jwt(ISSUER_PRIVATE, ISSUER, "dana", 300);
        String[] parts = valid.split("\\.");
        String noneHeader = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\"}".getBytes());
        refused(noneHeader + "." + parts[1] + ".", "invalid");
        refused(parts[0] + "." + parts[1] + "x." + parts[2], "invalid");
    }

    static String jwt(String privateKeyBase64, String issuer, String subject, long expiresInSeconds) throws Exception {
        PrivateKey key = KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(privateKeyBase64)));
        JwtClaims claims = new JwtClaims();
        claims.setIssuer(issuer);
        claims.setSubject(subject);
        NumericDate now = NumericDate.now();
        claims.setIssuedAt(NumericDate.fromSeconds(now.getValue() + Math.min(0, expiresInSeconds) - 60));
        claims.setExpirationTime(NumericDate.fromSeconds(now.getValue() + expiresInSeconds));
        JsonWebSignature jws = new JsonWebSignature();
        jws.setPayload(claims.toJson());
        jws.setKey(key);
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.ECDSA_USING_P256_CURVE_AND_SHA256);
        return jws.getCompactSerialization();
    }
}
