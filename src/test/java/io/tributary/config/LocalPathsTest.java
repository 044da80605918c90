package io.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A path no JVM can name (a NUL, in any locale) is refused naming the setting; the packaged server's refusal of a
 * path beyond ASCII under a locale without UTF-8 is {@code PackagedServerIT}'s.
 */
class LocalPathsTest {

    @Test
    void aPathTheJvmCannotNameIsRefusedNamingTheSettingAndTheFix() {
        assertThatThrownBy(() -> LocalPaths.usable("TRIBUTARY_WAREHOUSE", "/tmp/ware\0house"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("TRIBUTARY_WAREHOUSE: the path '/tmp/ware\0house' cannot be used here")
                .hasMessageContaining("LANG=C.UTF-8");
        assertThatThrownBy(() -> LocalPaths.usable("TRIBUTARY_WAREHOUSE", "file:/tmp/ware\0house"))
                .hasMessageStartingWith("TRIBUTARY_WAREHOUSE:");
    }

    @Test
    void objectStoreUrisAndNameablePathsPassUnchanged() {
        assertThat(LocalPaths.usable("TRIBUTARY_WAREHOUSE", "s3://bucket/wh\0")).isEqualTo("s3://bucket/wh\0");
        assertThat(LocalPaths.usable("TRIBUTARY_WAREHOUSE", "/tmp/with space")).isEqualTo("/tmp/with space");
        assertThat(LocalPaths.usable("TRIBUTARY_DATA_DIR", "file:/tmp/x")).isEqualTo("file:/tmp/x");
    }
}
