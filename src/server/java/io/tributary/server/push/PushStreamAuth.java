package io.tributary.server.push;

import io.quarkus.websockets.next.HttpUpgradeCheck;
import io.smallrye.mutiny.Uni;
import io.tributary.security.Authenticator;
import io.tributary.security.UnauthenticatedException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;

/**
 * The streaming push connection authenticates like every API request ({@code api.AuthFilter}): its HTTP upgrade carries
 * {@code Authorization: Bearer …}; without valid credentials the upgrade is refused with 401 and no WebSocket opens.
 */
@ApplicationScoped
public class PushStreamAuth implements HttpUpgradeCheck {
    @Inject
    Authenticator authenticator;

    @Override
    public Uni<CheckResult> perform(HttpUpgradeContext context) {
        try {
            context.userData().put(PushStream.PRINCIPAL,
                    authenticator.authenticate(context.httpRequest().getHeader("Authorization")));
            return CheckResult.permitUpgrade();
        } catch (UnauthenticatedException e) {
            return CheckResult.rejectUpgrade(401, Map.of("WWW-Authenticate", List.of("Bearer")));
        }
    }

    @Override
    public boolean appliesTo(String endpointId) {
        return PushStream.ENDPOINT.equals(endpointId);
    }
}
