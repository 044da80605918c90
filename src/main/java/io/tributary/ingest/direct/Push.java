package io.tributary.ingest.direct;

import java.util.List;

/**
 * One batch a producer pushed: {@code sequence} numbers its batches 0, 1, 2, … with no gaps; each sequence is
 * committed at most once, whichever process receives it (SPEC "Direct ingest").
 */
public record Push(String producerId, long sequence, List<Record> records) {

    /** A pushed record: key and value as their schema's bytes (null: absent), the record's time in epoch ms. */
    public record Record(byte[] key, byte[] value, long timestampMs) {
        long byteSize() {
            return (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        }
    }

    long byteSize() {
        long n = 0;
        for (Record r : records) {
            n += r.byteSize();
        }
        return n;
    }
}
