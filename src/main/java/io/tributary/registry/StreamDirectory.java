package io.tributary.registry;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.ingest.PipelineSpec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pipelines the runtime must run: one {@link PipelineSpec} per registered stream, secrets decrypted. Call from a
 * Vert.x context (e.g. {@code VertxContextSupport.subscribeAndAwait(() -> directory.all())} from a plain thread).
 */
@ApplicationScoped
public class StreamDirectory {
    @Inject
    StreamSources sources;

    public Uni<List<PipelineSpec>> all() {
        return Panache.withSession(() -> StreamRow.<StreamRow>list("order by fullName").flatMap(rows -> {
            Uni<List<PipelineSpec>> result = Uni.createFrom().item(new ArrayList<>());
            for (StreamRow row : rows) {
                result = result.flatMap(list -> spec(row).map(spec -> {
                    list.add(spec);
                    return list;
                }));
            }
            return result;
        }));
    }

    public Uni<Optional<PipelineSpec>> byId(String streamId) {
        return Panache.withSession(() -> StreamRow.<StreamRow>findById(streamId).flatMap(row -> row == null
                ? Uni.createFrom().item(Optional.<PipelineSpec>empty())
                : spec(row).map(Optional::of)));
    }

    private Uni<PipelineSpec> spec(StreamRow row) {
        StreamChecks.Checked checked = StreamChecks.check(RegistryJson.read(row.definition, StreamDefinition.class));
        return TableRow.<TableRow>findById(row.tableName).flatMap(table -> sources.resolve(checked, null)
                .map(resolved -> new PipelineSpec(row.id, row.fullName, table.storageLocation, checked.subscription(),
                        resolved.kafkaProperties(), resolved.key(), resolved.value(), row.createdAt)));
    }
}
