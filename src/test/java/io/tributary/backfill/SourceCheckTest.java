package io.tributary.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.Tables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SourceCheckTest {
    @TempDir
    Path dir;

    @Test
    void aTimestampColumnIsAccepted() {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        assertThat(Backfill.checkSource(tables, BackfillFixtures.copy("tx_history", dir))).isEmpty();
        assertThat(Backfill.checkSource(tables, BackfillFixtures.copy("plain_history", dir))).isEmpty();
    }

    @Test
    void stringAndTimestampNtzColumnsAreRejectedNamingTheColumnAndType() {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        assertThat(Backfill.checkSource(tables, BackfillFixtures.copy("string_timestamp", dir))).hasValueSatisfying(m ->
                assertThat(m).contains("stream_record_timestamp").contains("string").contains("must be timestamp"));
        assertThat(Backfill.checkSource(tables, BackfillFixtures.copy("ntz_timestamp", dir))).hasValueSatisfying(m ->
                assertThat(m).contains("stream_record_timestamp").contains("timestamp_ntz"));
    }

    @Test
    void aMissingTableOrColumnIsRejected() {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        assertThat(Backfill.checkSource(tables, dir.resolve("nothing").toString()))
                .hasValueSatisfying(m -> assertThat(m).contains("no Delta table"));
        String noTs = tables.defaultLocation("c", "s", "no_ts");
        tables.create(noTs, org.apache.avro.SchemaBuilder.record("r").fields().optionalString("key").endRecord(), java.util.Map.of());
        assertThat(Backfill.checkSource(tables, noTs)).hasValueSatisfying(m -> assertThat(m).contains("has no stream_record_timestamp"));
    }

    @Test
    void theCheckReportsAnUnusableSourceAsFailedWithoutTouchingTheTable() {
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        String location = tables.defaultLocation("c", "s", "tx");
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.PLAIN_STREAM);
        BackfillFixtures.append(table, List.of(BackfillFixtures.plainRow("k", "v", BackfillFixtures.BASE, 0)));
        long version = KernelScan.version(location);
        Instant created = Instant.parse("2026-01-01T00:00:00Z");

        BackfillStatus status = new Backfill(tables, BackfillSettings.defaults(), Clock.fixed(created.plusSeconds(999_999), ZoneOffset.UTC))
                .run(new BackfillJob(location, BackfillFixtures.copy("string_timestamp", dir), List.of(), created));

        assertThat(status.state()).isEqualTo(BackfillState.FAILED);
        assertThat(status.message()).contains("stream_record_timestamp");
        assertThat(KernelScan.version(location)).isEqualTo(version);
    }
}
