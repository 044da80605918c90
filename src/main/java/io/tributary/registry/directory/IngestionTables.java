package io.tributary.registry.directory;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.registry.store.TableRow;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * Where every stream's ingestion table lives: what table maintenance runs over, on the server's schedule and in the
 * backfill function. Call from a Vert.x context.
 */
@ApplicationScoped
public class IngestionTables {

    public Uni<List<String>> locations() {
        return Panache.withSession(() -> TableRow.<TableRow>list("kind = ?1 order by fullName", "INGESTION")
                .map(rows -> rows.stream().map(row -> row.storageLocation).toList()));
    }
}
