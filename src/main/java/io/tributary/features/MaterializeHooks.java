package io.tributary.features;

/** Test seams in a round: a crash after the offline commit, before the online transaction commits. */
public interface MaterializeHooks {
    MaterializeHooks NONE = spec -> { };

    void afterOfflineCommit(FeatureViewSpec spec);
}
