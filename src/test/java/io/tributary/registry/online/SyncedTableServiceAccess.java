package io.tributary.registry.online;

import java.time.Duration;

/** Tests outside the package: the lookups' cache bound that SPEC §9.1 states. */
public final class SyncedTableServiceAccess {
    private SyncedTableServiceAccess() {}

    public static Duration lookupCache() {
        return SyncedTableService.LOOKUP_CACHE;
    }
}
