package io.tributary.registry.service;

import io.quarkus.arc.DefaultBean;
import io.tributary.delta.WriteGuard;
import jakarta.enterprise.context.ApplicationScoped;

/** The functions' {@link AfterCommits}: none; their own invocations and the scheduled tick do that work. */
@DefaultBean
@ApplicationScoped
public class NoAfterCommits implements AfterCommits {
    @Override
    public WriteGuard around(WriteGuard fence, String tableLocation) {
        return fence;
    }
}
