package io.tributary.registry.directory;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.request.StreamChecks;
import io.tributary.registry.request.StreamDefinition;
import io.tributary.registry.service.TableService;
import io.tributary.registry.store.StreamRow;
import io.tributary.registry.store.TableRow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The streams whose backfill is still to do, and the place their {@code backfill_status} is kept. Call from a
 * Vert.x context (e.g. {@code VertxContextSupport.subscribeAndAwait(...)} from a scheduler thread).
 */
@ApplicationScoped
public class BackfillTargets {
    private static final List<String> DONE = List.of("NOT_CONFIGURED", "COMPLETED");

    @Inject
    TableService tableService;

    /** One stream's backfill: table locations as {@code Tables} takes them. */
    public record Target(String streamId, String streamName, String ingestionLocation, String sourceLocation,
            List<String> deduplicationColumns, Instant createdAt) {}

    /** The persisted {@code backfill_status} (SPEC 2.3). */
    public record Status(String state, Instant backfillMaxTimestamp, Instant ingestionMinTimestamp, boolean forced,
            Long rowsMerged, Instant completedAt) {}

    /** Streams with a backfill source that is not COMPLETED, in name order. */
    public Uni<List<Target>> pending() {
        return Panache.withSession(() -> StreamRow.<StreamRow>list("backfillState not in ?1 order by fullName", DONE)
                .flatMap(rows -> {
                    Uni<List<Target>> result = Uni.createFrom().item(new ArrayList<>());
                    for (StreamRow row : rows) {
                        result = result.flatMap(list -> target(row).map(t -> {
                            list.add(t);
                            return list;
                        }));
                    }
                    return result;
                }));
    }

    private Uni<Target> target(StreamRow row) {
        StreamChecks.Checked checked = StreamChecks.check(RegistryJson.read(row.definition, StreamDefinition.class));
        return TableRow.<TableRow>findById(row.tableName).flatMap(ingestion -> tableService.resolve(checked.backfill())
                .map(source -> new Target(row.id, row.fullName, ingestion.storageLocation, source.location(),
                        checked.deduplicationColumns() == null ? List.of() : checked.deduplicationColumns(),
                        row.createdAt)));
    }

    /** @return false if the stream is gone (deleted while its backfill ran) */
    public Uni<Boolean> record(String streamId, Status status) {
        return Panache.withTransaction(() -> StreamRow.<StreamRow>findById(streamId).map(row -> {
            if (row == null) {
                return false;
            }
            row.backfillState = status.state();
            row.backfillMaxTimestamp = status.backfillMaxTimestamp();
            row.ingestionMinTimestamp = status.ingestionMinTimestamp();
            row.forced = status.forced();
            row.rowsMerged = status.rowsMerged();
            row.completedAt = status.completedAt();
            return true;
        }));
    }
}
