package io.tributary.server;

import io.tributary.delta.WriteGuard;
import io.tributary.registry.service.AfterCommits;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The server's work after each commit to a stream's table, off the writer's thread: the table's CONTINUOUS synced
 * tables are synced, then its feature views are materialized.
 */
@ApplicationScoped
public class ServerAfterCommits implements AfterCommits {
    @Inject
    ContinuousSync synced;
    @Inject
    FeatureMaterialization features;

    @Override
    public WriteGuard around(WriteGuard fence, String tableLocation) {
        return features.afterCommits(synced.afterCommits(fence, tableLocation), tableLocation);
    }
}
