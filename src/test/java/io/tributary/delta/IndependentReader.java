package io.tributary.delta;

import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * Reads local tables with Kernel's stock Hadoop-based engine, so what the tests check does not go through our
 * storage seam or FileIO.
 */
public final class IndependentReader {
    private static final Engine HADOOP = DefaultEngine.create(new Configuration());

    private IndependentReader() {}

    /** Every row, byte arrays as lower-case hex (see {@code TestRows.normalRead}). */
    public static List<Map<String, Object>> rows(String location) {
        List<Map<String, Object>> out = new ArrayList<>();
        try (TableReader r = new TableReader(HADOOP, TableManager.loadSnapshot(location).build(HADOOP))) {
            r.forEachRemaining(row -> out.add(TestRows.normalRead(row)));
        }
        return out;
    }

    public static long version(String location) {
        return TableManager.loadSnapshot(location).build(HADOOP).getVersion();
    }

    /** Every domain metadata entry of the latest snapshot (positions, decode failures, markers), by domain. */
    public static Map<String, String> domains(String location) {
        return io.tributary.delta.kernel.Snapshots.activeDomains(TableManager.loadSnapshot(location).build(HADOOP));
    }
}
