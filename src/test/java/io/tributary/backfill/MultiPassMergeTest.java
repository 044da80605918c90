package io.tributary.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.Tables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keys that do not fit the key memory are merged in several passes over hash partitions, with the same result. */
class MultiPassMergeTest {
    @TempDir
    Path dir;

    @Test
    void aSmallKeyMemorySplitsTheMergeIntoPassesWithTheSameResult() {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        // 60k source rows over 50k keys (10k duplicated), 30k ingested rows of which 10k share a key with the source.
        String source = tables.defaultLocation("c", "s", "history");
        DeltaTable history = BackfillFixtures.createIngestion(tables, source, BackfillFixtures.PLAIN_STREAM);
        List<GenericRecord> rows = new ArrayList<>();
        for (int i = 0; i < 60_000; i++) {
            int k = i % 50_000;
            rows.add(BackfillFixtures.plainRow("k" + k, "v" + k, BackfillFixtures.BASE.plusSeconds(k), i));
        }
        BackfillFixtures.append(history, rows);
        List<String> targets = new ArrayList<>();
        for (String name : List.of("one_pass", "many_passes")) {
            String location = tables.defaultLocation("c", "s", name);
            DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.PLAIN_STREAM);
            List<GenericRecord> streamed = new ArrayList<>();
            for (int i = 40_000; i < 70_000; i++) {
                streamed.add(BackfillFixtures.plainRow("k" + i, "v" + i, BackfillFixtures.BASE.plusSeconds(i), i - 40_000));
            }
            BackfillFixtures.append(table, streamed);
            targets.add(location);
        }
        List<Map<String, Object>> before = KernelScan.rows(targets.get(0));
        Instant created = BackfillFixtures.BASE;
        Clock clock = Clock.fixed(created.plus(Duration.ofDays(3)), ZoneOffset.UTC);
        BackfillSettings small = new BackfillSettings(Duration.ofHours(1), Duration.ofHours(48), 1 << 20, 7_000);

        DeltaTable manyPasses = tables.open(targets.get(1));
        SourceRowMapper mapper = new SourceRowMapper(manyPasses.rowSchema(), MergeRound.columnNames(tables, source), "backfill");
        try (MergeRound round = MergeRound.run(tables, manyPasses, source, new DedupKeys(mapper.rowSchema(), List.of()), mapper, small)) {
            assertThat(round.passes()).isGreaterThan(1);
            assertThat(round.rows()).isEqualTo(40_000);
            assertThat(round.files()).hasSizeGreaterThanOrEqualTo(40_000 / 7_000);
        }

        BackfillStatus one = new Backfill(tables, BackfillSettings.defaults(), clock)
                .run(new BackfillJob(targets.get(0), source, List.of(), created));
        BackfillStatus many = new Backfill(tables, small, clock).run(new BackfillJob(targets.get(1), source, List.of(), created));

        assertThat(one.rowsMerged()).isEqualTo(40_000);
        assertThat(many.rowsMerged()).isEqualTo(40_000);
        // This source has Kafka columns and its own record_source: the merge copies the former and overrides the latter.
        Map<Map<String, Object>, Long> expected = BackfillFixtures.counts(BackfillFixtures.referenceMerge(before,
                KernelScan.rows(source), DedupKeys.DEFAULT, r -> {
                    Map<String, Object> m = new java.util.LinkedHashMap<>(r);
                    m.put("record_source", "backfill");
                    return m;
                }));
        assertThat(BackfillFixtures.counts(KernelScan.rows(targets.get(0)))).isEqualTo(expected);
        assertThat(BackfillFixtures.counts(KernelScan.rows(targets.get(1)))).isEqualTo(expected);
    }
}
