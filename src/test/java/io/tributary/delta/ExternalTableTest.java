package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tables written by Spark (see src/test/resources/delta-golden/README.md) read through our storage seam. */
class ExternalTableTest {
    @TempDir
    Path dir;

    @Test
    void readsDeletionVectorsColumnMappingAndCheckpoints() {
        String location = Paths.get("src/test/resources/delta-golden/dv-with-columnmapping").toAbsolutePath().toString();
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());

        assertThat(tables.exists(location)).isTrue();
        assertThat(tables.columns(location)).containsExactly(
                new Column("part", "int", true), new Column("col1", "int", true), new Column("col2", "string", true));

        List<Map<String, Object>> expected = new ArrayList<>();
        for (int x = 0; x < 50; x++) {
            if (!(x % 2 == 0 && x < 30)) {
                expected.add(Map.of("part", x % 10, "col1", x, "col2", "foo" + x % 5));
            }
        }
        try (TableRows rows = tables.read(location)) {
            List<Map<String, Object>> read = new ArrayList<>();
            rows.forEachRemaining(read::add);
            assertThat(rows.version()).isEqualTo(15);
            assertThat(read).containsExactlyInAnyOrderElementsOf(expected);
        }
    }
}
