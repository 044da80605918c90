package io.tributary.ingest.direct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.SequenceGapException;
import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.StreamIngester;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group commit and producer sequences against a real Delta table, with two writers standing for two processes: each
 * has its own {@link GroupCommit} and ingester, and only the table's log connects them.
 */
class GroupCommitTest {
    private static final String JSON = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}}}";
    private static final GroupCommit.Limits LIMITS = new GroupCommit.Limits(Duration.ofMillis(20), 100_000,
            64L << 20, 256L << 20);

    @TempDir
    Path warehouse;
    Tables tables;
    PipelineSpec spec;
    String location;

    @BeforeEach
    void createTable() {
        tables = Tables.forWarehouse(warehouse.toString(), Optional.empty());
        StreamSchema schema = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
                SideSchema.compile(new SchemaSource.JsonSchema(JSON), "payload_schema"));
        location = tables.defaultLocation("main", "s", "t");
        tables.create(location, schema.rowSchema(), Map.of());
        spec = new PipelineSpec("id", "main.s.t", location, new Subscription.Direct(), Map.of(),
                new SchemaSource.Plain(), new SchemaSource.JsonSchema(JSON), Instant.now());
    }

    GroupCommit writer(String name) {
        return new GroupCommit(name, () -> OpenedIngester.open(tables, spec), LIMITS);
    }

    static Push push(String producer, long sequence, int records) {
        List<Push.Record> list = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            list.add(new Push.Record(null, ("{\"id\":\"" + producer + "/" + sequence + "/" + i + "\"}")
                    .getBytes(StandardCharsets.UTF_8), 1_700_000_000_000L));
        }
        return new Push(producer, sequence, list);
    }

    static PushOutcome await(CompletableFuture<PushOutcome> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    List<String> ids() {
        List<String> out = new ArrayList<>();
        try (TableRows rows = tables.read(location)) {
            rows.forEachRemaining(r -> out.add(String.valueOf(((Map<?, ?>) r.get("value")).get("id"))));
        }
        return out;
    }

    @Test
    void concurrentPushesOfManyProducersBecomeOneCommit() throws Exception {
        GroupCommit writer = writer("a");
        // The first push opens the table; the others queue meanwhile and share the next round.
        assertThat(await(writer.submit(push("warm", 0, 1)))).isInstanceOf(PushOutcome.Committed.class);
        long before = writer.commits();
        List<CompletableFuture<PushOutcome>> all = new ArrayList<>();
        for (int p = 0; p < 50; p++) {
            all.add(writer.submit(push("p" + p, 0, 10)));
        }
        for (CompletableFuture<PushOutcome> f : all) {
            assertThat(await(f)).isInstanceOf(PushOutcome.Committed.class);
        }
        assertThat(writer.commits() - before).as("50 pushes, few commits").isLessThanOrEqualTo(3);
        assertThat(ids()).hasSize(501).doesNotHaveDuplicates();
    }

    @Test
    void oneProducersBatchesInOneRoundCommitInSequenceAndARepeatInTheRoundOnce() throws Exception {
        GroupCommit writer = writer("a");
        CompletableFuture<PushOutcome> two = writer.submit(push("p", 2, 1));
        CompletableFuture<PushOutcome> zero = writer.submit(push("p", 0, 1));
        CompletableFuture<PushOutcome> one = writer.submit(push("p", 1, 1));
        CompletableFuture<PushOutcome> oneAgain = writer.submit(push("p", 1, 1));
        for (CompletableFuture<PushOutcome> f : List.of(zero, one, oneAgain, two)) {
            PushOutcome o = await(f);
            assertThat(o).isInstanceOf(PushOutcome.Committed.class);
        }
        assertThat(ids()).containsExactlyInAnyOrder("p/0/0", "p/1/0", "p/2/0");
        assertThat(((PushOutcome.Committed) await(writer.submit(push("p", 1, 1)))).duplicate()).isTrue();
        assertThat(await(writer.submit(push("p", 5, 1)))).isEqualTo(new PushOutcome.Gap(3));
    }

    @Test
    void twoWritersPushingTheSameBatchesLandEachOnce() throws Exception {
        GroupCommit a = writer("a");
        GroupCommit b = writer("b");
        List<CompletableFuture<PushOutcome>> all = new ArrayList<>();
        for (long seq = 0; seq < 20; seq++) {
            for (int p = 0; p < 5; p++) {
                all.add(a.submit(push("p" + p, seq, 5)));
                all.add(b.submit(push("p" + p, seq, 5)));
            }
            if (seq % 4 == 3) {
                for (CompletableFuture<PushOutcome> f : all) {
                    // A writer that saw a producer's sequence go ahead of it answers Gap only after re-reading the
                    // table: batches pushed in order never see one.
                    assertThat(await(f)).isInstanceOf(PushOutcome.Committed.class);
                }
                all.clear();
            }
        }
        List<String> ids = ids();
        assertThat(ids).hasSize(20 * 5 * 5);
        assertThat(new HashSet<>(ids)).hasSize(20 * 5 * 5);
    }

    @Test
    void aWriterBehindTheTableReadsItAgainBeforeCallingAGap() throws Exception {
        GroupCommit a = writer("a");
        GroupCommit b = writer("b");
        assertThat(await(b.submit(push("warm", 0, 1)))).isInstanceOf(PushOutcome.Committed.class);
        assertThat(await(a.submit(push("p", 0, 1)))).isInstanceOf(PushOutcome.Committed.class);
        // b has not seen p's first batch: p's next one is no gap, and one after it is.
        assertThat(await(b.submit(push("p", 1, 1)))).isInstanceOf(PushOutcome.Committed.class);
        assertThat(await(b.submit(push("p", 3, 1)))).isEqualTo(new PushOutcome.Gap(2));
        assertThat(ids()).containsExactlyInAnyOrder("warm/0/0", "p/0/0", "p/1/0");
    }

    /** Below the group commit: an ingester never bridges a producer's missing sequences, as it does Kafka's gaps. */
    @Test
    void anIngesterRefusesABatchThatSkipsAProducersSequences() {
        StreamIngester first = OpenedIngester.open(tables, spec).ingester();
        StreamIngester stale = OpenedIngester.open(tables, spec).ingester();
        first.ingest(batch("p", 0));
        // stale still thinks p is new; a batch at sequence 3 must not commit as 1..3.
        assertThatThrownBy(() -> stale.ingest(batch("p", 3))).isInstanceOf(SequenceGapException.class)
                .satisfies(e -> assertThat(((SequenceGapException) e).expected()).isEqualTo(Map.of("p", 1L)));
        assertThat(ids()).containsExactly("p/0/0");
        assertThat(tables.open(location).positions()).isEqualTo(Map.of(PartitionKey.producer("p"), 1L));
        assertThat(warehouseFiles()).as("the refused batch's data file was removed").isEqualTo(1);
    }

    private long warehouseFiles() {
        try (var files = java.nio.file.Files.walk(Path.of(location.replace("file:", "")))) {
            return files.filter(f -> f.toString().endsWith(".parquet")).count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static MicroBatch batch(String producer, long sequence) {
        return MicroBatch.builder().addRun(PartitionKey.producer(producer), List.of(new SourceRecord(producer,
                PartitionKey.PRODUCER, sequence, 1_700_000_000_000L, null,
                ("{\"id\":\"" + producer + "/" + sequence + "/0\"}").getBytes(StandardCharsets.UTF_8)))).build();
    }
}
