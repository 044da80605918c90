package io.tributary.registry.features;

/** Tests outside the package: the lookups' cache bound that SPEC §10.1 states. */
public final class FeatureViewServiceAccess {
    private FeatureViewServiceAccess() {}

    public static long lookupCacheNanos() {
        return FeatureViewService.LOOKUP_CACHE.toNanos();
    }
}
