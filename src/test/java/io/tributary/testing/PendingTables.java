package io.tributary.testing;

import io.tributary.delta.Column;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Until the delta branch is merged there is no Tables implementation; this bean lets the application boot so the
 * registry, secrets, connections and permissions can be tested. Every table operation fails loudly. Delete this class
 * when the delta merge brings the real producer.
 */
@ApplicationScoped
public class PendingTables implements Tables {
    @ConfigProperty(name = "tributary.warehouse")
    String warehouse;

    @Override
    public String defaultLocation(String catalog, String schema, String table) {
        return warehouse + "/" + catalog + "/" + schema + "/" + table;
    }

    @Override
    public boolean exists(String location) {
        throw pending();
    }

    @Override
    public DeltaTable create(String location, Schema rowSchema, Map<PartitionKey, Long> startPositions) {
        throw pending();
    }

    @Override
    public DeltaTable open(String location) {
        throw pending();
    }

    @Override
    public void delete(String location) {
        throw pending();
    }

    @Override
    public List<Column> columns(String location) {
        throw pending();
    }

    private static UnsupportedOperationException pending() {
        return new UnsupportedOperationException("Delta tables arrive with the delta branch");
    }
}
