package io.tributary.backfill;

import io.tributary.delta.Column;
import io.tributary.delta.DataFile;
import io.tributary.delta.DataFileSummary;
import io.tributary.delta.TableWriter;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.avro.generic.GenericRecord;

/**
 * Writes the rows of one merge attempt: every source row whose dedup key is neither in the ingestion table nor
 * already taken by an earlier source row, as uncommitted data files of at most {@code rowsPerFile} rows. Memory
 * holds key hashes only; when they would exceed the key memory, the keys are split by hash into partitions handled
 * one pass each (each pass reads both tables again). The hashes of the rows written go to a temporary file, so a
 * later check against rows that raced in from the stream needs no key set of this size.
 */
final class MergeRound implements AutoCloseable {
    private static final long UNKNOWN_ROWS = 1_000_000;

    private final List<DataFile> files = new ArrayList<>();
    private final Path written;
    private long basedOn = -1;
    private long rows;
    private long sourceVersion = -1;
    private int passes;

    private MergeRound(Path written) {
        this.written = written;
    }

    static MergeRound run(Tables tables, TableWriter ingestion, String source, DedupKeys keys, SourceRowMapper mapper,
            BackfillSettings settings) {
        MergeRound round;
        try {
            round = new MergeRound(Files.createTempFile("tributary-backfill-", ".keys"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary file for the backfill's key hashes", e);
        }
        try {
            round.write(tables, ingestion, source, keys, mapper, settings);
            return round;
        } catch (RuntimeException | Error e) {
            round.close();
            throw e;
        }
    }

    private void write(Tables tables, TableWriter ingestion, String source, DedupKeys keys, SourceRowMapper mapper,
            BackfillSettings settings) {
        long ingestionRows = rowCount(tables.dataFiles(ingestion.location()));
        long sourceRows = rowCount(tables.dataFiles(source));
        passes = 1;
        while (KeyHashSet.bytesFor((ingestionRows + sourceRows) / passes) > settings.keyMemoryBytes() && passes < 1 << 16) {
            passes *= 2;
        }
        int bits = Integer.numberOfTrailingZeros(passes);
        long[] h = new long[2];
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(written), 1 << 16))) {
            for (int pass = 0; pass < passes; pass++) {
                KeyHashSet ingested = new KeyHashSet(ingestionRows / passes);
                try (TableRows it = tables.read(ingestion.location(), keys.columns())) {
                    // Later passes may read a newer version: a superset of keys, so they only exclude more, and
                    // the commit is checked against the first pass's version.
                    if (pass == 0) {
                        basedOn = it.version();
                    }
                    while (it.hasNext()) {
                        keys.hash(it.next(), h);
                        if (inPass(h[0], bits, pass)) {
                            ingested.add(h[0], h[1]);
                        }
                    }
                }
                KeyHashSet taken = new KeyHashSet(sourceRows / passes);
                try (TableRows it = tables.read(source)) {
                    sourceVersion = it.version();
                    Iterator<GenericRecord> accepted = accepted(it, keys, mapper, ingested, taken, bits, pass, out, h);
                    while (accepted.hasNext()) {
                        files.add(ingestion.writeDataFile(() -> limit(accepted, settings.rowsPerFile())));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing the backfill's key hashes to " + written + " failed", e);
        }
    }

    private Iterator<GenericRecord> accepted(Iterator<Map<String, Object>> source, DedupKeys keys, SourceRowMapper mapper,
            KeyHashSet ingested, KeyHashSet taken, int bits, int pass, DataOutputStream out, long[] h) {
        return new Iterator<>() {
            private GenericRecord next;

            @Override
            public boolean hasNext() {
                while (next == null && source.hasNext()) {
                    Map<String, Object> row = source.next();
                    keys.hash(row, h);
                    if (!inPass(h[0], bits, pass) || ingested.contains(h[0], h[1]) || !taken.add(h[0], h[1])) {
                        continue;
                    }
                    next = mapper.map(row);
                    try {
                        out.writeLong(h[0]);
                        out.writeLong(h[1]);
                    } catch (IOException e) {
                        throw new UncheckedIOException("writing the backfill's key hashes to " + written + " failed", e);
                    }
                    rows++;
                }
                return next != null;
            }

            @Override
            public GenericRecord next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                GenericRecord r = next;
                next = null;
                return r;
            }
        };
    }

    private static Iterator<GenericRecord> limit(Iterator<GenericRecord> it, int max) {
        return new Iterator<>() {
            private int n;

            @Override
            public boolean hasNext() {
                return n < max && it.hasNext();
            }

            @Override
            public GenericRecord next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                n++;
                return it.next();
            }
        };
    }

    private static boolean inPass(long hi, int bits, int pass) {
        return bits == 0 || (int) (hi >>> (64 - bits)) == pass;
    }

    private static long rowCount(List<DataFileSummary> files) {
        long n = 0;
        for (DataFileSummary f : files) {
            n += f.numRecords() >= 0 ? f.numRecords() : UNKNOWN_ROWS;
        }
        return n;
    }

    /** True if any row written in this round has one of {@code keys}. */
    boolean wroteAnyOf(KeyHashSet keys) {
        if (keys.size() == 0) {
            return false;
        }
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(written), 1 << 16))) {
            while (true) {
                long hi;
                try {
                    hi = in.readLong();
                } catch (EOFException end) {
                    return false;
                }
                if (keys.contains(hi, in.readLong())) {
                    return true;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the backfill's key hashes from " + written + " failed", e);
        }
    }

    List<DataFile> files() {
        return files;
    }

    /** The ingestion table version the first pass deduplicated against. */
    long basedOn() {
        return basedOn;
    }

    long rows() {
        return rows;
    }

    long sourceVersion() {
        return sourceVersion;
    }

    int passes() {
        return passes;
    }

    static List<String> columnNames(Tables tables, String location) {
        return tables.columns(location).stream().map(Column::name).toList();
    }

    @Override
    public void close() {
        try {
            Files.deleteIfExists(written);
        } catch (IOException e) {
            // A leftover temp file is harmless; the merge's outcome does not depend on it.
        }
    }
}
