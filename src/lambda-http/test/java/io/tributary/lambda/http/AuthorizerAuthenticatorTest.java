package io.tributary.lambda.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.tributary.security.Principal;
import io.tributary.security.UnauthenticatedException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AuthorizerAuthenticatorTest {

    @Test
    void theCallerIsTheAuthorizerIdentityAndAdminsComeFromConfiguration() {
        AuthorizerAuthenticator authenticator = new AuthorizerAuthenticator(() -> identity("alice-sub"),
                Optional.of("root-sub, alice-sub"));

        assertThat(authenticator.authOff()).isFalse();
        assertThat(authenticator.authenticate("Bearer whatever")).isEqualTo(new Principal("alice-sub", true));
        assertThat(new AuthorizerAuthenticator(() -> identity("bob-sub"), Optional.empty()).authenticate(null))
                .isEqualTo(new Principal("bob-sub", false));
    }

    @Test
    void withoutAnAuthorizerIdentityTheCallIsUnauthenticatedNeverTheLocalAdmin() {
        SecurityIdentity anonymous = QuarkusSecurityIdentity.builder().setAnonymous(true).build();

        assertThatThrownBy(() -> new AuthorizerAuthenticator(() -> anonymous, Optional.empty()).authenticate(null))
                .isInstanceOf(UnauthenticatedException.class).hasMessageContaining("no authorizer identity");
        assertThatThrownBy(() -> new AuthorizerAuthenticator(() -> null, Optional.of("local")).authenticate("Bearer x"))
                .isInstanceOf(UnauthenticatedException.class);
    }

    private static SecurityIdentity identity(String name) {
        return QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal(name)).build();
    }
}
