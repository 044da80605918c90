package io.tributary.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import io.tributary.delta.WriteGuard;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loop both schedules run: each table compacted then vacuumed; a table deleted meanwhile is skipped. */
class TableMaintenanceTest {
    @TempDir
    Path dir;

    @Test
    void everyTableIsCompactedThenVacuumedAndAGoneTableIsSkipped() throws Exception {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        PipelineSpec spec = stream(tables, "a");
        OpenedIngester opened = OpenedIngester.open(tables, spec);
        for (int batch = 0; batch < 3; batch++) {
            MicroBatch.Builder b = MicroBatch.builder();
            for (int i = 0; i < 5; i++) {
                long offset = batch * 5L + i;
                b.add(new SourceRecord("t", 0, offset, 1_700_000_000_000L + offset, utf8("k" + offset), utf8("v" + offset)));
            }
            assertThat(opened.ingester().ingest(b.build())).isPresent();
        }
        Path tableDir = Path.of(URI.create(spec.tableLocation()));
        Path orphan = Files.writeString(tableDir.resolve("part-00000-orphan-c000.snappy.parquet"), "not committed");
        Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(8))));
        List<String> before = offsets(tables, spec.tableLocation());
        String gone = tables.defaultLocation("main", "m", "gone");

        TableMaintenance.Summary summary = new TableMaintenance(tables, MaintenanceSettings.defaults())
                .maintainAll(List.of(spec.tableLocation(), gone));

        assertThat(summary).isEqualTo(new TableMaintenance.Summary(1, 1, 1, "not committed".length(), 0));
        assertThat(tables.dataFiles(spec.tableLocation())).hasSize(1);
        assertThat(orphan).doesNotExist();
        assertThat(offsets(tables, spec.tableLocation())).containsExactlyElementsOf(before).hasSize(15);
        try (Stream<Path> files = Files.list(tableDir)) {
            assertThat(files.filter(f -> f.toString().endsWith(".parquet")).count())
                    .as("the three compacted files stay for time travel").isEqualTo(4);
        }
    }

    @Test
    void aTableWhoseGuardRefusesIsLeftUntouched() throws Exception {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        PipelineSpec spec = stream(tables, "fenced");
        OpenedIngester opened = OpenedIngester.open(tables, spec);
        for (long offset = 0; offset < 3; offset++) {
            assertThat(opened.ingester().ingest(MicroBatch.builder().add(new SourceRecord("t", 0, offset,
                    1_700_000_000_000L + offset, utf8("k" + offset), utf8("v" + offset))).build())).isPresent();
        }
        Path orphan = Files.writeString(Path.of(URI.create(spec.tableLocation()))
                .resolve("part-00000-orphan-c000.snappy.parquet"), "not committed");
        Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(8))));
        // What the registry's guard does for a table whose stream is being deleted: the write does not run.
        WriteGuard refusing = new WriteGuard() {
            @Override
            public <T> Optional<T> run(java.util.function.Supplier<T> write) {
                return Optional.empty();
            }
        };

        TableMaintenance.Summary summary = new TableMaintenance(tables, MaintenanceSettings.defaults(),
                location -> refusing).maintainAll(List.of(spec.tableLocation()));

        assertThat(summary).isEqualTo(new TableMaintenance.Summary(0, 0, 0, 0, 0));
        assertThat(tables.dataFiles(spec.tableLocation())).hasSize(3);
        assertThat(orphan).exists();
    }

    private static PipelineSpec stream(Tables tables, String name) {
        String location = tables.defaultLocation("main", "m", name);
        SchemaSource plain = new SchemaSource.Plain();
        StreamSchema schema = StreamSchema.of(SideSchema.compile(plain, "key_schema"), SideSchema.compile(plain, "payload_schema"));
        tables.create(location, schema.rowSchema(), Map.of(new PartitionKey("t", 0), 0L));
        return new PipelineSpec("id-" + name, "main.m." + name, location, new Subscription.Topics(List.of("t")), Map.of(),
                plain, plain, Instant.now());
    }

    private static List<String> offsets(Tables tables, String location) {
        List<String> out = new ArrayList<>();
        try (TableRows rows = tables.read(location)) {
            rows.forEachRemaining(r -> out.add(r.get("kafka_partition") + "/" + r.get("kafka_offset")));
        }
        out.sort(null);
        return out;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
