package io.tributary.registry.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 12 item 8: no table location resolves outside the warehouse or TRIBUTARY_EXTERNAL_LOCATIONS. */
class AllowedLocationsTest {
    static final String FIELD = "storage_location";

    @TempDir
    Path dir;

    private static void outside(AllowedLocations allowed, String location) {
        assertThatThrownBy(() -> allowed.check(FIELD, location)).as(location).isInstanceOf(ApiException.class)
                .hasMessageStartingWith(FIELD + ":");
    }

    @Test
    void localWarehouseOnlyByDefault() throws Exception {
        Path warehouse = Files.createDirectories(dir.resolve("warehouse"));
        Files.createDirectories(dir.resolve("warehouse2"));
        Files.createDirectories(dir.resolve("elsewhere"));
        AllowedLocations allowed = new AllowedLocations(warehouse.toString(), List.of());

        assertThat(allowed.check(FIELD, warehouse + "/ext/t")).isEqualTo(warehouse + "/ext/t");
        assertThat(allowed.check(FIELD, "file:" + warehouse + "/ext/t/")).isEqualTo("file:" + warehouse + "/ext/t");
        assertThat(allowed.check(FIELD, "file://" + warehouse + "/a")).isEqualTo("file://" + warehouse + "/a");

        outside(allowed, warehouse + "/../elsewhere/t");
        outside(allowed, warehouse + "/a/./b");
        outside(allowed, warehouse + "/%2e%2e/elsewhere");
        outside(allowed, warehouse + "%2F..%2Felsewhere");
        outside(allowed, dir.resolve("warehouse2").toString() + "/t");
        outside(allowed, dir.resolve("elsewhere").toString());
        outside(allowed, "/etc");
        outside(allowed, "file:/etc/passwd");
        outside(allowed, "file://otherhost" + warehouse + "/t");
        outside(allowed, "s3://other-bucket/x");
        outside(allowed, "relative/path");
        outside(allowed, "hdfs://nn/x");
        outside(allowed, warehouse + "/a\u0000b");
        outside(allowed, warehouse + "\\..\\elsewhere");
        outside(allowed, " ");
    }

    @Test
    void aLinkInsideTheWarehouseThatPointsOutIsOutside() throws Exception {
        Path warehouse = Files.createDirectories(dir.resolve("warehouse"));
        Path secret = Files.createDirectories(dir.resolve("secret"));
        Files.createSymbolicLink(warehouse.resolve("link"), secret);
        AllowedLocations allowed = new AllowedLocations(warehouse.toString(), List.of());
        outside(allowed, warehouse + "/link");
        outside(allowed, warehouse + "/link/not-yet/created");
        Files.createSymbolicLink(warehouse.resolve("dangling"), dir.resolve("gone"));
        outside(allowed, warehouse + "/dangling/t");
        // A warehouse that is itself reached through a link still contains its own tables.
        Path linkedWarehouse = Files.createSymbolicLink(dir.resolve("wh-link"), warehouse);
        AllowedLocations viaLink = new AllowedLocations(linkedWarehouse.toString(), List.of());
        assertThat(viaLink.check(FIELD, warehouse + "/t")).isEqualTo(warehouse + "/t");
    }

    @Test
    void s3PrefixesCompareSegmentBySegment() {
        AllowedLocations allowed = new AllowedLocations("s3://lake/warehouse", List.of("s3://shared/history/",
                " ", "s3a://Archive"));
        assertThat(allowed.check(FIELD, "s3://lake/warehouse/main/t")).isEqualTo("s3://lake/warehouse/main/t");
        assertThat(allowed.check(FIELD, "s3a://lake/warehouse/t/")).isEqualTo("s3a://lake/warehouse/t");
        assertThat(allowed.check(FIELD, "s3://shared/history/tx")).isEqualTo("s3://shared/history/tx");
        assertThat(allowed.check(FIELD, "s3://archive/any/thing")).isEqualTo("s3://archive/any/thing");
        outside(allowed, "s3://lake/warehouse2/t");
        outside(allowed, "s3://lake/warehouse/../other");
        outside(allowed, "s3://lake/warehouse//t");
        outside(allowed, "s3://lake/warehouse/%2E%2E/other");
        outside(allowed, "s3://lake");
        outside(allowed, "s3://other-bucket/warehouse/t");
        outside(allowed, "s3:///warehouse");
        outside(allowed, "/tmp/t");
    }

    @Test
    void aBadRootIsAConfigurationError() {
        assertThatThrownBy(() -> new AllowedLocations("s3://lake/w", List.of("s3://x/../y")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("TRIBUTARY_EXTERNAL_LOCATIONS");
    }
}
