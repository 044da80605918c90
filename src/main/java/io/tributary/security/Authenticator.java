package io.tributary.security;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Turns an {@code Authorization} header into a principal (SPEC 3): bearer tokens from {@code tributary.auth.tokens},
 * or JWTs signed by the configured issuer. With neither configured, authentication is off and every caller is the
 * admin {@code local}; {@link LoopbackOnlyConfigSource} then binds the server to 127.0.0.1.
 */
@ApplicationScoped
public class Authenticator {
    /** Compiled once: {@code String.split("\\s+")} compiles its pattern on every call, i.e. on every request. */
    private static final java.util.regex.Pattern SCHEME_SEPARATOR = java.util.regex.Pattern.compile("\\s+");
    private static final Logger LOG = Logger.getLogger(Authenticator.class);
    public static final String LOCAL_PRINCIPAL = "local";

    private final List<NamedToken> tokens;
    private final Optional<JwtVerifier> jwt;
    private final Set<String> admins;

    @Inject
    public Authenticator(
            @ConfigProperty(name = "tributary.auth.tokens") Optional<String> tokens,
            @ConfigProperty(name = "tributary.auth.jwt.issuer") Optional<String> jwtIssuer,
            @ConfigProperty(name = "tributary.auth.jwt.public-key") Optional<String> jwtPublicKey,
            @ConfigProperty(name = "tributary.admins") Optional<String> admins) {
        this.tokens = parseTokens(tokens.orElse(""));
        this.jwt = jwtIssuer.filter(s -> !s.isBlank()).map(issuer -> new JwtVerifier(issuer, jwtPublicKey.orElseThrow(
                () -> new IllegalStateException("tributary.auth.jwt.issuer (TRIBUTARY_AUTH_JWT_ISSUER) is set but "
                        + "tributary.auth.jwt.public-key (TRIBUTARY_AUTH_JWT_PUBLIC_KEY) is not: set the issuer's "
                        + "public key as PEM"))));
        this.admins = Set.of(admins.orElse("").split(",")).stream().map(String::trim).filter(s -> !s.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
    }

    /**
     * Says at start-up how callers are authenticated. Called by the server, which serves HTTP itself; the functions
     * do not call it (behind API Gateway, or serving no API, "authentication is off" would only mislead).
     */
    public void logMode() {
        if (authOff()) {
            LOG.warn("Authentication is OFF: neither TRIBUTARY_AUTH_TOKENS nor TRIBUTARY_AUTH_JWT_ISSUER is set, so "
                    + "every caller is the admin principal 'local' and the server listens on 127.0.0.1 only");
        } else {
            LOG.infof("Authentication is on: %d bearer token(s)%s, %d admin principal(s)", tokens.size(),
                    jwt.isPresent() ? " and JWTs of the configured issuer" : "", admins.size());
        }
    }

    public boolean authOff() {
        return tokens.isEmpty() && jwt.isEmpty();
    }

    /**
     * @param authorization the raw {@code Authorization} header, or null
     * @throws UnauthenticatedException when credentials are missing or wrong
     */
    public Principal authenticate(String authorization) {
        if (authOff()) {
            return new Principal(LOCAL_PRINCIPAL, true);
        }
        if (authorization == null || authorization.isBlank()) {
            throw new UnauthenticatedException(
                    "no credentials: send the header 'Authorization: Bearer <token>' with a configured token or JWT");
        }
        String[] parts = SCHEME_SEPARATOR.split(authorization.trim(), 2);
        if (parts.length != 2 || !parts[0].equalsIgnoreCase("Bearer")) {
            throw new UnauthenticatedException(
                    "unsupported Authorization header: use the scheme 'Bearer <token>'");
        }
        String credential = parts[1].trim();
        String name = matchToken(credential);
        if (name == null && jwt.isPresent() && looksLikeJwt(credential)) {
            return principal(jwt.get().subject(credential));
        }
        if (name == null) {
            throw new UnauthenticatedException("invalid bearer token: use a configured token or a valid JWT");
        }
        return principal(name);
    }

    private Principal principal(String name) {
        return new Principal(name, admins.contains(name));
    }

    /** Compares against every configured token in constant time, so timing reveals neither which nor how much matched. */
    private String matchToken(String credential) {
        byte[] given = sha256(credential);
        String match = null;
        for (NamedToken t : tokens) {
            if (MessageDigest.isEqual(given, t.digest()) && match == null) {
                match = t.principal();
            }
        }
        return match;
    }

    private static boolean looksLikeJwt(String credential) {
        return credential.chars().filter(c -> c == '.').count() == 2;
    }

    private static List<NamedToken> parseTokens(String spec) {
        List<NamedToken> result = new ArrayList<>();
        int position = 0;
        for (String entry : spec.split(",")) {
            position++;
            String trimmed = entry.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            int eq = trimmed.indexOf('=');
            if (eq <= 0 || eq == trimmed.length() - 1) {
                throw new IllegalStateException("TRIBUTARY_AUTH_TOKENS entry " + position
                        + " is not of the form principal=token: use 'alice=tokenA,bob=tokenB'");
            }
            result.add(new NamedToken(trimmed.substring(0, eq).trim(), sha256(trimmed.substring(eq + 1).trim())));
        }
        return List.copyOf(result);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private record NamedToken(String principal, byte[] digest) {}
}
