package io.tributary.lambda.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent.RequestContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AuthorizerIdentityProviderTest {

    private final AuthorizerIdentityProvider provider = new AuthorizerIdentityProvider();

    @Test
    void theJwtSubjectIsThePrincipalWhateverTheIssuer() {
        assertThat(provider.authenticate(jwt(Map.of("sub", "alice-sub", "iss", "https://issuer.example")))
                .getPrincipal().getName()).isEqualTo("alice-sub");
        // A Cognito ID token is named by its subject too, not by cognito:username.
        assertThat(provider.authenticate(jwt(Map.of("sub", "1234-abcd", "cognito:username", "alice")))
                .getPrincipal().getName()).isEqualTo("1234-abcd");
    }

    @Test
    void anIamCallerIsNamedByItsArn() {
        RequestContext.IAM iam = new RequestContext.IAM();
        iam.setUserArn("arn:aws:iam::123456789012:role/pipeline");
        RequestContext.Authorizer authorizer = new RequestContext.Authorizer();
        authorizer.setIam(iam);

        assertThat(provider.authenticate(event(authorizer)).getPrincipal().getName())
                .isEqualTo("arn:aws:iam::123456789012:role/pipeline");
    }

    @Test
    void withoutAnAuthorizerIdentityTheCallerStaysAnonymous() {
        assertThat(provider.authenticate(new APIGatewayV2HTTPEvent())).isNull();
        assertThat(provider.authenticate(event(new RequestContext.Authorizer()))).isNull();
        assertThat(provider.authenticate(jwt(Map.of("scope", "read")))).isNull();
    }

    private static APIGatewayV2HTTPEvent jwt(Map<String, String> claims) {
        RequestContext.Authorizer.JWT jwt = new RequestContext.Authorizer.JWT();
        jwt.setClaims(claims);
        jwt.setScopes(List.of());
        RequestContext.Authorizer authorizer = new RequestContext.Authorizer();
        authorizer.setJwt(jwt);
        return event(authorizer);
    }

    private static APIGatewayV2HTTPEvent event(RequestContext.Authorizer authorizer) {
        RequestContext context = new RequestContext();
        context.setAuthorizer(authorizer);
        APIGatewayV2HTTPEvent event = new APIGatewayV2HTTPEvent();
        event.setRequestContext(context);
        return event;
    }
}
