package io.tributary.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class DedupKeysTest {
    private static final Schema ROW = BackfillFixtures.TX_STREAM.rowSchema();

    private static long[] hash(DedupKeys keys, Map<String, Object> row) {
        long[] h = new long[2];
        keys.hash(row, h);
        return h;
    }

    private static Map<String, Object> row(Object txId, Object amount, Object key) {
        Map<String, Object> value = new HashMap<>();
        value.put("transaction_id", txId);
        value.put("amount", amount);
        Map<String, Object> row = new HashMap<>();
        row.put("key", key);
        row.put("value", value);
        row.put("stream_record_timestamp", Instant.parse("2026-01-01T00:00:00Z"));
        return row;
    }

    @Test
    void nullEqualsNullAndDiffersFromEveryValue() {
        DedupKeys keys = new DedupKeys(ROW, List.of("value.transaction_id"));
        assertThat(hash(keys, row(null, 1, "a"))).isEqualTo(hash(keys, row(null, 2, "b")));
        assertThat(hash(keys, row(null, 1, "a"))).isNotEqualTo(hash(keys, row("", 1, "a")));
        Map<String, Object> noValue = new HashMap<>();
        noValue.put("value", null);
        assertThat(hash(keys, noValue)).isEqualTo(hash(keys, row(null, 1, "a")));
    }

    @Test
    void valuesCompareAfterWideningToTheIngestionType() {
        DedupKeys keys = new DedupKeys(ROW, List.of("value.amount", "key"));
        assertThat(hash(keys, row("x", 5, "k"))).isEqualTo(hash(keys, row("y", 5L, "k")));
        assertThat(hash(keys, row("x", 5, "k"))).isNotEqualTo(hash(keys, row("x", 6, "k")));
    }

    @Test
    void columnsAreNotConcatenatedAmbiguously() {
        DedupKeys keys = new DedupKeys(ROW, List.of("key", "value.transaction_id"));
        assertThat(hash(keys, row("bc", 1, "a"))).isNotEqualTo(hash(keys, row("c", 1, "ab")));
    }

    @Test
    void theDefaultKeyIsKeyValueAndTimestamp() {
        DedupKeys keys = new DedupKeys(ROW, List.of());
        assertThat(hash(keys, row("x", 1, "k"))).isNotEqualTo(hash(keys, row("x", 2, "k")));
        Map<String, Object> later = row("x", 1, "k");
        later.put("stream_record_timestamp", Instant.parse("2026-01-01T00:00:00.000001Z"));
        assertThat(hash(keys, row("x", 1, "k"))).isNotEqualTo(hash(keys, later));
        assertThat(hash(keys, row("x", 1, "k"))).isEqualTo(hash(keys, row("x", 1, "k")));
    }

    @Test
    void anUnknownPathIsRejectedWithTheFieldsThereAre() {
        assertThatThrownBy(() -> new DedupKeys(ROW, List.of("value.txid")))
                .hasMessageContaining("value.txid").hasMessageContaining("transaction_id, amount, currency");
        assertThatThrownBy(() -> new DedupKeys(ROW, List.of("key.x"))).hasMessageContaining("not a struct");
    }
}
