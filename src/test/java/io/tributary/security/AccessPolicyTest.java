package io.tributary.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

class AccessPolicyTest {
    static final Principal BOB = new Principal("bob", false);

    @Test
    void ownersAndAdminsMayDoEverythingOthersNeedTheGrant() {
        assertThat(AccessPolicy.allows(BOB, "bob", Set.of(), Privilege.MANAGE)).isTrue();
        assertThat(AccessPolicy.allows(new Principal("root", true), "alice", Set.of(), Privilege.MANAGE)).isTrue();
        assertThat(AccessPolicy.allows(BOB, "alice", Set.of(), Privilege.SELECT)).isFalse();
        assertThat(AccessPolicy.allows(BOB, "alice", Set.of(Privilege.SELECT), Privilege.SELECT)).isTrue();
        assertThat(AccessPolicy.allows(BOB, "alice", Set.of(Privilege.SELECT), Privilege.MANAGE)).isFalse();
        assertThat(AccessPolicy.allows(BOB, "alice", Set.of(Privilege.MANAGE), Privilege.SELECT)).isFalse();
        assertThat(AccessPolicy.allows(BOB, null, Set.of(), Privilege.SELECT)).isFalse();
    }

    @Test
    void scopePermissionsNest() {
        assertThat(AccessPolicy.allows(BOB, "alice", Set.of(Privilege.MANAGE), Privilege.READ)).isTrue();
        assertThat(AccessPolicy.allows(BOB, "alice", Set.of(Privilege.WRITE), Privilege.READ)).isTrue();
        assertThat(AccessPolicy.allows(BOB, "alice", Set.of(Privilege.READ), Privilege.WRITE)).isFalse();
        assertThat(AccessPolicy.allows(BOB, "alice", Set.of(Privilege.WRITE), Privilege.MANAGE)).isFalse();
    }

    @Test
    void denialsNameWhatIsMissing() {
        assertThatThrownBy(() -> AccessPolicy.require(BOB, "alice", Set.of(), Privilege.USE_CONNECTION, "connection",
                "kafka")).isInstanceOf(PermissionDeniedException.class)
                .hasMessageContaining("USE CONNECTION").hasMessageContaining("kafka").hasMessageContaining("bob");
    }
}
