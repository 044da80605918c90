package io.tributary.registry.directory;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.request.StreamChecks;
import io.tributary.registry.request.StreamDefinition;
import io.tributary.registry.service.StreamSources;
import io.tributary.registry.store.StreamRow;
import io.tributary.registry.store.TableRow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The pipelines the runtime must run: one {@link PipelineSpec} per registered stream, secrets decrypted. Call from a
 * Vert.x context (e.g. {@code VertxContextSupport.subscribeAndAwait(() -> directory.page(null, 500))} from a plain
 * thread).
 */
@ApplicationScoped
public class StreamDirectory {
    private static final Logger LOG = Logger.getLogger(StreamDirectory.class);

    @Inject
    StreamSources sources;

    /**
     * The next {@code size} streams in id order after {@code afterId} (null: from the first). Pages keep each session
     * and each burst of event-loop work small, so a server with many thousands of streams starts them a page at a
     * time while it keeps serving. A stream that cannot be resolved (its connection or a secret is gone) is left out
     * with a warning rather than holding up every other stream.
     */
    public Uni<Page> page(String afterId, int size) {
        return Panache.withSession(() -> (afterId == null ? StreamRow.<StreamRow>find("order by id")
                : StreamRow.<StreamRow>find("id > ?1 order by id", afterId)).page(0, size).list()
                .flatMap(rows -> {
                    if (rows.isEmpty()) {
                        return Uni.createFrom().item(new Page(List.of(), null));
                    }
                    String last = rows.get(rows.size() - 1).id;
                    List<String> tableNames = rows.stream().map(r -> r.tableName).distinct().toList();
                    return TableRow.<TableRow>list("fullName in ?1", tableNames).flatMap(tables -> {
                        Map<String, TableRow> byName = new HashMap<>();
                        tables.forEach(t -> byName.put(t.fullName, t));
                        // Concatenated, not a chain of flatMaps: a chain as long as the page recurses that deep.
                        return Multi.createFrom().iterable(rows).onItem()
                                .transformToUniAndConcatenate(row -> spec(row, byName.get(row.tableName))
                                        .<Object>map(spec -> spec)
                                        .onFailure().recoverWithItem(e -> {
                                            LOG.warnf("stream %s is not started: %s", row.fullName, e.getMessage());
                                            return new Unresolved(row.id, row.fullName, e.getMessage());
                                        }))
                                .collect().asList()
                                .map(items -> new Page(
                                        items.stream().filter(PipelineSpec.class::isInstance)
                                                .map(PipelineSpec.class::cast).toList(), last,
                                        items.stream().filter(Unresolved.class::isInstance)
                                                .map(Unresolved.class::cast).toList()));
                    });
                }));
    }

    /**
     * Streams of one page; {@code lastId} is where the next page starts, null after the last page. {@code unresolved}:
     * the page's streams whose spec could not be built (they are registered all the same).
     */
    public record Page(List<PipelineSpec> specs, String lastId, List<Unresolved> unresolved) {
        public Page(List<PipelineSpec> specs, String lastId) {
            this(specs, lastId, List.of());
        }
    }

    /**
     * A registered stream whose spec cannot be built now: a secret it reads was deleted (and may be put again), the
     * registry failed half-way. {@code reason} is the failure's message.
     */
    public record Unresolved(String streamId, String streamName, String reason) {}

    /**
     * Every registered stream's id and name, in one query and without building a spec: what a server compares its
     * pipelines with (a spec decrypts the stream's secrets and resolves its connection and schemas).
     */
    public Uni<Map<String, String>> names() {
        return Panache.withSession(() -> Panache.getSession().flatMap(session -> session
                .createSelectionQuery("select s.id, s.fullName from StreamRow s", Object[].class).getResultList()))
                .map(rows -> {
                    Map<String, String> out = new HashMap<>();
                    rows.forEach(r -> out.put((String) r[0], (String) r[1]));
                    return out;
                });
    }

    /**
     * Whether the stream is registered, without building its spec: a stream that cannot be resolved is still
     * registered, and must not be taken for deleted.
     */
    public Uni<Boolean> exists(String streamId) {
        return Panache.withSession(() -> StreamRow.count("id = ?1", streamId).map(n -> n > 0));
    }

    public Uni<Optional<PipelineSpec>> byId(String streamId) {
        return Panache.withSession(() -> StreamRow.<StreamRow>findById(streamId).flatMap(row -> row == null
                ? Uni.createFrom().item(Optional.<PipelineSpec>empty())
                : spec(row).map(Optional::of)));
    }

    private Uni<PipelineSpec> spec(StreamRow row) {
        return TableRow.<TableRow>findById(row.tableName).flatMap(table -> spec(row, table));
    }

    private Uni<PipelineSpec> spec(StreamRow row, TableRow table) {
        if (table == null) {
            return Uni.createFrom().failure(new IllegalStateException("its ingestion table " + row.tableName
                    + " is not registered"));
        }
        StreamChecks.Checked checked = StreamChecks.check(RegistryJson.read(row.definition, StreamDefinition.class));
        return sources.resolve(checked, null).map(resolved -> new PipelineSpec(row.id, row.fullName,
                table.storageLocation, checked.subscription(), resolved.kafkaProperties(), resolved.key(),
                resolved.value(), row.createdAt, checked.rescueUndecodable()));
    }
}
