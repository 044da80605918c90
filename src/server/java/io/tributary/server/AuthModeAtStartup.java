package io.tributary.server;

import io.quarkus.runtime.StartupEvent;
import io.tributary.security.Authenticator;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/** The server's start-up line on how its HTTP callers are authenticated (the functions have none of their own). */
@ApplicationScoped
class AuthModeAtStartup {
    @Inject
    Authenticator authenticator;

    void log(@Observes StartupEvent event) {
        authenticator.logMode();
    }
}
