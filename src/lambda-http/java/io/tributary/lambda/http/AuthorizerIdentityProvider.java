package io.tributary.lambda.http;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import io.quarkus.amazon.lambda.http.LambdaIdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/**
 * On Lambda the API Gateway authorizer has already verified the caller; the principal is its identity (SPEC 3): the
 * JWT {@code sub}, or the caller's IAM ARN. Quarkus's default would name JWT callers only for Cognito ID tokens
 * ({@code cognito:username}) and leave every other JWT anonymous. Requests without an authorizer identity stay
 * anonymous (null), which the API answers with 401.
 */
@ApplicationScoped
public class AuthorizerIdentityProvider implements LambdaIdentityProvider {

    @Override
    public SecurityIdentity authenticate(APIGatewayV2HTTPEvent event) {
        String principal = principal(event);
        return principal == null ? null
                : QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal(principal)).build();
    }

    static String principal(APIGatewayV2HTTPEvent event) {
        if (event == null || event.getRequestContext() == null || event.getRequestContext().getAuthorizer() == null) {
            return null;
        }
        APIGatewayV2HTTPEvent.RequestContext.Authorizer authorizer = event.getRequestContext().getAuthorizer();
        if (authorizer.getJwt() != null && authorizer.getJwt().getClaims() != null) {
            Map<String, String> claims = authorizer.getJwt().getClaims();
            String subject = claims.get("sub");
            return subject == null || subject.isBlank() ? null : subject;
        }
        if (authorizer.getIam() != null) {
            String arn = authorizer.getIam().getUserArn();
            return arn == null || arn.isBlank() ? null : arn;
        }
        return null;
    }
}
