package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What one commit file counts for the history: rows of data-changing adds only, at the commit's own time. */
class CommitHistoryTest {
    @Test
    void countsDataChangingAddsAtTheCommitTime() throws Exception {
        String commit = """
                {"commitInfo":{"timestamp":1764600000000,"operation":"WRITE","isBlindAppend":true}}
                {"add":{"path":"a.parquet","size":10,"dataChange":true,"stats":"{\\"numRecords\\":3}"}}
                {"add":{"path":"b.parquet","size":10,"dataChange":true,"stats":"{\\"numRecords\\":4}"}}
                {"domainMetadata":{"domain":"tributary.position.t.0","configuration":"{}","removed":false}}
                """;
        TableHistory.Commit c = CommitHistory.parse(7, commit.getBytes(StandardCharsets.UTF_8), 1L);
        assertThat(c).isEqualTo(new TableHistory.Commit(7, Instant.ofEpochMilli(1764600000000L), "WRITE", 7, 2));
    }

    @Test
    void aCompactionAddsNoRows() throws Exception {
        String commit = """
                {"commitInfo":{"timestamp":1764600000000,"operation":"OPTIMIZE"}}
                {"remove":{"path":"a.parquet","dataChange":false}}
                {"add":{"path":"c.parquet","size":10,"dataChange":false,"stats":"{\\"numRecords\\":3}"}}
                """;
        assertThat(CommitHistory.parse(8, commit.getBytes(StandardCharsets.UTF_8), 1L).rowsAdded()).isZero();
    }

    @Test
    void withoutCommitInfoTheFileTimeCounts() throws Exception {
        String commit = "{\"add\":{\"path\":\"a.parquet\",\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":2}\"}}\n";
        TableHistory.Commit c = CommitHistory.parse(1, commit.getBytes(StandardCharsets.UTF_8), 42L);
        assertThat(c.timestamp()).isEqualTo(Instant.ofEpochMilli(42L));
        assertThat(c.rowsAdded()).isEqualTo(2);
    }
}
