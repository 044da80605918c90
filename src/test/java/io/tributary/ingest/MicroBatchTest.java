package io.tributary.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.PartitionKey;
import java.util.List;
import org.junit.jupiter.api.Test;

class MicroBatchTest {

    static SourceRecord rec(String topic, int partition, long offset) {
        return new SourceRecord(topic, partition, offset, 1000 + offset, new byte[] {1}, new byte[] {1, 2, 3});
    }

    @Test
    void groupsByPartitionInArrivalOrderAndCountsPayloadBytes() {
        MicroBatch.Builder b = MicroBatch.builder();
        b.add(rec("t", 0, 5)).add(rec("t", 1, 7)).add(rec("t", 0, 6)).add(rec("u", 0, 1));
        MicroBatch batch = b.build();
        assertThat(batch.size()).isEqualTo(4);
        assertThat(batch.byteSize()).isEqualTo(16);
        assertThat(batch.partitions().keySet())
                .containsExactly(new PartitionKey("t", 0), new PartitionKey("t", 1), new PartitionKey("u", 0));
        assertThat(batch.partitions().get(new PartitionKey("t", 0))).extracting(SourceRecord::offset)
                .containsExactly(5L, 6L);
        assertThat(b.isEmpty()).isTrue();
        assertThat(b.byteSize()).isZero();
    }

    @Test
    void aRecordAtAnOffsetAlreadyHeldReplacesWhatFollowsIt() {
        MicroBatch.Builder b = MicroBatch.builder();
        for (long o = 10; o < 15; o++) {
            b.add(rec("t", 0, o));
        }
        b.add(rec("t", 0, 12)).add(rec("t", 0, 13));
        MicroBatch batch = b.build();
        assertThat(batch.partitions().get(new PartitionKey("t", 0))).extracting(SourceRecord::offset)
                .containsExactly(10L, 11L, 12L, 13L);
        assertThat(batch.size()).isEqualTo(4);
        assertThat(batch.byteSize()).isEqualTo(16);
    }

    @Test
    void removingRevokedPartitionsForgetsTheirRecordsAndBytes() {
        MicroBatch.Builder b = MicroBatch.builder();
        b.add(rec("t", 0, 1)).add(rec("t", 1, 1)).add(rec("t", 1, 2));
        b.removePartitions(List.of(new PartitionKey("t", 1)));
        assertThat(b.size()).isEqualTo(1);
        assertThat(b.byteSize()).isEqualTo(4);
        b.add(rec("t", 1, 3));
        assertThat(b.build().partitions().get(new PartitionKey("t", 1))).extracting(SourceRecord::offset)
                .containsExactly(3L);
    }
}
