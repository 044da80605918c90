package io.tributary.security;

import java.util.Collection;

/**
 * The privilege rules of SPEC 3: admins may do everything, the owner holds every privilege, anyone else needs a grant.
 * On secret scopes the permissions nest (MANAGE covers WRITE covers READ), as in Databricks secret ACLs.
 */
public final class AccessPolicy {
    private AccessPolicy() {}

    public static boolean allows(Principal caller, String owner, Collection<Privilege> granted, Privilege needed) {
        if (caller.admin() || caller.name().equals(owner)) {
            return true;
        }
        if (granted.contains(needed)) {
            return true;
        }
        return switch (needed) {
            case READ -> granted.contains(Privilege.WRITE) || granted.contains(Privilege.MANAGE);
            case WRITE -> granted.contains(Privilege.MANAGE);
            default -> false;
        };
    }

    public static void require(Principal caller, String owner, Collection<Privilege> granted, Privilege needed,
            String securableKind, String securableName) {
        if (!allows(caller, owner, granted, needed)) {
            throw new PermissionDeniedException("principal '" + caller.name() + "' lacks " + needed.apiName() + " on "
                    + securableKind + " '" + securableName + "': ask its owner or an admin to grant it");
        }
    }
}
