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
final class IndependentReader {
    private static final Engine HADOOP = DefaultEngine.create(new Configuration());

    private IndependentReader() {}

    static List<Map<String, Object>> rows(String location) {
        List<Map<String, Object>> out = new ArrayList<>();
        try (TableReader r = new TableReader(HADOOP, TableManager.loadSnapshot(location).build(HADOOP))) {
            r.forEachRemaining(row -> out.add(TestRows.normalRead(row)));
        }
        return out;
    }

    static long version(String location) {
        return TableManager.loadSnapshot(location).build(HADOOP).getVersion();
    }
}
