package io.tributary.registry.features;

/** Tests outside the package: the lookups' cache bound that SPEC §10.1 states; a server that never compiled a view. */
public final class FeatureViewServiceAccess {
    private FeatureViewServiceAccess() {}

    public static long lookupCacheNanos() {
        return FeatureViewService.LOOKUP_CACHE.toNanos();
    }

    /** Forgets the view's compiled definition, as a server that never compiled it (another one, a restart) has none. */
    public static void forget(FeatureViews views, String viewId) {
        views.forget(viewId);
    }
}
