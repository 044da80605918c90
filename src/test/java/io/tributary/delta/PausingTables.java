package io.tributary.delta;

import java.io.IOException;

/**
 * Local tables whose data-file writes call a hook first, for tests in other packages: a writer stopped there has read
 * the table (a compaction has its snapshot) and has not committed yet.
 */
public final class PausingTables {
    private PausingTables() {}

    public static Tables beforeDataFileWrites(String warehouseRoot, Runnable hook) {
        Storage storage = new ForwardingStorage() {
            @Override
            public void put(String path, byte[] data) throws IOException {
                if (path.endsWith(".parquet") && !path.contains("/_delta_log/")) {
                    hook.run();
                }
                super.put(path, data);
            }
        };
        return new KernelTables(new Warehouse(warehouseRoot, java.util.Optional.empty()), storage);
    }
}
