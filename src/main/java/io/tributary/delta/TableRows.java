package io.tributary.delta;

import java.util.Iterator;
import java.util.Map;

/**
 * The rows of a table snapshot, one map per row keyed by column name in schema order. Values: {@code Boolean},
 * {@code Byte}, {@code Short}, {@code Integer}, {@code Long}, {@code Float}, {@code Double}, {@code String},
 * {@code byte[]}, {@code BigDecimal}, {@code LocalDate} (date), {@code Instant} (timestamp),
 * {@code LocalDateTime} (timestamp_ntz), {@code Map<String,Object>} (struct), {@code List} (array), {@code Map}
 * (map), or null. Close it to release open files.
 */
public interface TableRows extends Iterator<Map<String, Object>>, AutoCloseable {

    /** The table version these rows belong to. */
    long version();

    @Override
    void close();
}
