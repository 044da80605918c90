package io.tributary.schema;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Hands out the names of the Avro records of one column. Avro resolves unions by record full name (parquet-avro does
 * too when it writes), so two different records with one name inside a row schema break writing; names here are
 * derived from the column path and made unique. The prefix keeps the key's names apart from the value's.
 */
final class RecordNames {
    private final String prefix;
    private final Set<String> taken = new HashSet<>();
    private final ColumnLimit.Budget columns = new ColumnLimit.Budget();

    RecordNames(String prefix) {
        this.prefix = prefix;
    }

    String prefix() {
        return prefix;
    }

    /** The column count of the side being compiled; every compiler adds the fields of each struct it maps. */
    ColumnLimit.Budget columns() {
        return columns;
    }

    /** @param path the column path below the side, e.g. {@code customer.address}; empty for the side itself */
    String next(String path) {
        StringBuilder base = new StringBuilder(prefix);
        if (!path.isEmpty()) {
            base.append('_').append(path.replace('.', '_'));
        }
        String name = base.toString();
        // Avro full names are case-sensitive but some readers fold case; keep them apart either way.
        int n = 2;
        while (!taken.add(name.toLowerCase(Locale.ROOT))) {
            name = base + "_" + n++;
        }
        return name;
    }
}
