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

    /**
     * Deletes a view as another server's DELETE does (state row, online tables, offline table, registry row), without
     * this server's service hearing of it: its lookups still remember the view for up to 2 s.
     */
    public static void deleteElsewhere(FeatureViewStore registry, FeatureViews views, io.tributary.delta.Tables tables,
            String fullName) {
        FeatureViewRow row = registry.find(fullName).orElseThrow();
        views.store().drop(row.id(), row.fullName(), row.onlineTables());
        tables.delete(row.offlineLocation());
        registry.delete(fullName);
    }
}
