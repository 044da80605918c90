package io.tributary.lambda.http;

import io.quarkus.security.identity.SecurityIdentity;
import io.tributary.security.Authenticator;
import io.tributary.security.Principal;
import io.tributary.security.UnauthenticatedException;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * stream-api's {@link Authenticator}: API Gateway's JWT authorizer has verified the token before the function runs,
 * and {@link AuthorizerIdentityProvider} has named the caller, so the principal is that identity (SPEC 3). Replaces
 * the server's token and JWT checks, which with nothing configured would turn every caller into the admin "local".
 */
@Alternative
@Priority(1)
@Singleton // no client proxy: the identity it reads is request-scoped and proxied already
public class AuthorizerAuthenticator extends Authenticator {

    private final Supplier<SecurityIdentity> identity;
    private final Set<String> admins;

    @Inject
    AuthorizerAuthenticator(SecurityIdentity identity, @ConfigProperty(name = "tributary.admins") Optional<String> admins) {
        this(() -> identity, admins);
    }

    AuthorizerAuthenticator(Supplier<SecurityIdentity> identity, Optional<String> admins) {
        super(Optional.empty(), Optional.empty(), Optional.empty(), admins);
        this.identity = identity;
        this.admins = Arrays.stream(admins.orElse("").split(",")).map(String::strip).filter(s -> !s.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
    }

    @Override
    public boolean authOff() {
        return false;
    }

    /** The header was checked by the authorizer already; only its verdict counts here. */
    @Override
    public Principal authenticate(String authorization) {
        SecurityIdentity caller = identity.get();
        if (caller == null || caller.isAnonymous()) {
            throw new UnauthenticatedException("no authorizer identity: call the API through its API Gateway URL "
                    + "with 'Authorization: Bearer <JWT>' from the configured issuer");
        }
        String name = caller.getPrincipal().getName();
        return new Principal(name, admins.contains(name));
    }
}
