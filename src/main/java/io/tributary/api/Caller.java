package io.tributary.api;

import io.tributary.security.Principal;
import jakarta.enterprise.context.RequestScoped;

/** The authenticated principal of the current request, set by {@link AuthFilter}. */
@RequestScoped
public class Caller {
    private Principal principal;

    void set(Principal principal) {
        this.principal = principal;
    }

    public Principal principal() {
        if (principal == null) {
            throw new IllegalStateException("no principal: the auth filter did not run");
        }
        return principal;
    }
}
