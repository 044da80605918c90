package io.tributary.registry.service;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import io.tributary.config.DirectIngestConfig;
import io.tributary.delta.NoSuchTableException;
import io.tributary.delta.Tables;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineControl;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.StreamDeletedException;
import io.tributary.ingest.Subscription;
import io.tributary.ingest.direct.GroupCommit;
import io.tributary.ingest.direct.MalformedPushException;
import io.tributary.ingest.direct.Push;
import io.tributary.ingest.direct.PushBodies;
import io.tributary.ingest.direct.PushOutcome;
import io.tributary.registry.lock.StreamWriteLocks;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.ErrorCode;
import io.tributary.registry.request.Names;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.request.StreamChecks;
import io.tributary.registry.request.StreamDefinition;
import io.tributary.registry.view.StreamReads;
import io.tributary.security.AccessPolicy;
import io.tributary.security.Principal;
import io.tributary.security.Privilege;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Direct ingest (SPEC "Direct ingest"): a push is checked (the stream exists, reads no Kafka, the caller holds
 * MODIFY on its table), read into a {@link Push} and handed to the stream's {@link GroupCommit} in this process,
 * which answers once the batch is committed. The same in every runtime: the server and the stream-api function.
 * As a {@link PipelineControl} it learns of deletes, so a deleted stream's committer refuses further pushes (the
 * write fence already keeps their commits out).
 */
@ApplicationScoped
public class DirectIngest implements PipelineControl {
    @Inject
    StreamReads reads;
    @Inject
    StreamSources sources;
    @Inject
    Tables tables;
    @Inject
    StreamWriteLocks writeLocks;
    @Inject
    AfterCommits afterCommits;
    @Inject
    DirectIngestConfig config;

    private record Target(GroupCommit commits, PushBodies bodies, String location) {}

    private final ConcurrentMap<String, Target> targets = new ConcurrentHashMap<>();
    /**
     * The stream and the caller's MODIFY per caller and name, for {@link #PUSH_CACHE}: a hundred producers pushing
     * ten times a second would otherwise read the registry a thousand times a second. A grant changed here clears it;
     * one changed on another server is seen within that time (SPEC "Direct ingest").
     */
    private final ExpiringCache<String, StreamReads.One> streams = new ExpiringCache<>(PUSH_CACHE);

    static final Duration PUSH_CACHE = Duration.ofSeconds(2);
    private static final Duration REGISTRY_READ = Duration.ofSeconds(30);

    void onGrantsChanged(@Observes GrantsChanged change) {
        streams.clear();
    }

    /**
     * A push checked, read and queued for its stream's group commit: {@code answer} is its acknowledgement, as the
     * HTTP endpoint sends it. A streaming connection queues its batches one after another, in the order they came,
     * and waits for their answers concurrently.
     */
    public record Queued(String producerId, long sequence, Uni<Map<String, Object>> answer) {}

    public Uni<Map<String, Object>> push(Principal caller, String nameParam, String contentType, byte[] body) {
        return submit(caller, nameParam, contentType, body).flatMap(Queued::answer);
    }

    /**
     * What a push checks before it is read: the stream exists, the caller holds MODIFY on its table and it is a
     * direct stream. A streaming connection checks this when it opens, and every batch is checked again like a push.
     *
     * @return the stream's id
     */
    public Uni<String> check(Principal caller, String nameParam) {
        String fullName = Names.fullName("name", nameParam);
        return reads.one(fullName, caller.name()).map(found -> {
            allowed(caller, fullName, found);
            if (!targets.containsKey(found.stream().id)) {
                requireDirect(found);
            }
            return found.stream().id;
        });
    }

    public Uni<Queued> submit(Principal caller, String nameParam, String contentType, byte[] body) {
        String fullName = Names.fullName("name", nameParam);
        String cacheKey = ExpiringCache.perCaller(caller, fullName);
        return submit(caller, fullName, contentType, body, cacheKey, false);
    }

    /**
     * @param fresh read the stream from the registry, not from {@link #streams}: the second try of a push whose
     *     remembered stream had been deleted (another server deleted it, and perhaps created it again)
     */
    private Uni<Queued> submit(Principal caller, String fullName, String contentType, byte[] body, String cacheKey,
            boolean fresh) {
        long receivedAt = System.currentTimeMillis();
        Context context = Vertx.currentContext();
        if (fresh) {
            streams.remove(cacheKey);
        }
        return streams.get(cacheKey, () -> {
            StreamReads.One one = reads.one(fullName, caller.name()).await().atMost(REGISTRY_READ);
            allowed(caller, fullName, one);
            return one;
        }).flatMap(found -> {
            Target known = targets.get(found.stream().id);
            Uni<Target> target = known != null ? Uni.createFrom().item(known) : open(found);
            return target.flatMap(t -> Blocking.call(() -> read(t.bodies(), contentType, body, receivedAt))
                    .map(push -> {
                        Uni<PushOutcome> outcome = Uni.createFrom().completionStage(t.commits().submit(push));
                        // The committer thread completes the push: answer on the request's own context.
                        Uni<Map<String, Object>> answer = (context == null ? outcome
                                : outcome.emitOn(r -> context.runOnContext(v -> r.run())))
                                .flatMap(o -> stillThere(found.stream().id, t, o))
                                .onFailure().call(e -> forgetIfDeleted(found.stream().id, t, e))
                                .onFailure(e -> !(cause(e) instanceof StreamDeletedException
                                        || cause(e) instanceof GroupCommit.OverloadedException))
                                .recoverWithUni(e -> Blocking.call(() -> registered(found.stream().id,
                                        t.location())).map(exists -> {
                                    // Gone: the stream was deleted while this push read or wrote its table.
                                    if (!exists) {
                                        throw new StreamDeletedException(t.location());
                                    }
                                    if (cause(e) instanceof NoSuchTableException) {
                                        // A read raced a concurrent writer's checkpoint; nothing was written.
                                        throw new ApiException(ErrorCode.TEMPORARILY_UNAVAILABLE, "the table could "
                                                + "not be read just now; nothing of this batch was written: retry "
                                                + "the same batch");
                                    }
                                    throw cause(e) instanceof RuntimeException r ? r : new IllegalStateException(e);
                                }))
                                .map(o -> answer(fullName, push, o));
                        if (!fresh) {
                            // The stream came from the cache and is gone: read it again once, so a stream deleted
                            // and created again under its name by another server takes pushes at once, not after
                            // the cache's 2 s. Nothing of the batch was written, so pushing it again is safe.
                            answer = answer.onFailure(e -> cause(e) instanceof StreamDeletedException)
                                    .recoverWithUni(e -> submit(caller, fullName, contentType, body, cacheKey, true)
                                            .flatMap(Queued::answer));
                        }
                        answer = answer.onFailure().transform(e -> failure(fullName, e));
                        return new Queued(push.producerId(), push.sequence(), answer);
                    }));
        });
    }

    private static void allowed(Principal caller, String fullName, StreamReads.One found) {
        if (found == null) {
            throw ApiException.notFound("stream '" + fullName + "' does not exist");
        }
        AccessPolicy.require(caller, found.tableOwner(), found.privileges(), Privilege.MODIFY, "table",
                found.stream().tableName);
    }

    private static StreamChecks.Checked requireDirect(StreamReads.One found) {
        StreamChecks.Checked checked = StreamChecks.check(RegistryJson.read(found.stream().definition,
                StreamDefinition.class));
        if (!(checked.subscription() instanceof Subscription.Direct)) {
            throw ApiException.invalid("name", "stream '" + found.stream().fullName + "' reads Kafka topics; "
                    + "records are pushed only to streams created with source_config.direct_source_config");
        }
        return checked;
    }

    private Uni<Target> open(StreamReads.One found) {
        StreamChecks.Checked checked = requireDirect(found);
        String id = found.stream().id;
        return Panache.withSession(() -> sources.resolve(checked, null)).map(resolved -> {
            PipelineSpec spec = new PipelineSpec(id, found.stream().fullName, found.tableLocation(),
                    checked.subscription(), Map.of(), resolved.key(), resolved.value(), found.stream().createdAt,
                    checked.rescueUndecodable());
            GroupCommit.Limits limits = new GroupCommit.Limits(config.groupCommitWait(), config.maxGroupRecords(),
                    config.maxGroupBytes(), config.maxQueuedBytes());
            // Opened by the committer on its first round: every commit inside the stream's write fence, followed by
            // this runtime's after-commit work (the server's synced tables and feature views) as a pipeline's is.
            GroupCommit commits = new GroupCommit(spec.streamName(), () -> OpenedIngester.open(tables, spec,
                    afterCommits.around(writeLocks.forStream(id, spec.tableLocation()), spec.tableLocation())), limits);
            return targets.computeIfAbsent(id, k -> new Target(commits, new PushBodies(resolved.key(),
                    resolved.value(), spec.rescueUndecodable()), spec.tableLocation()));
        });
    }

    private static Push read(PushBodies bodies, String contentType, byte[] body, long receivedAt) {
        try {
            return bodies.read(contentType, body == null ? new byte[0] : body, receivedAt);
        } catch (MalformedPushException e) {
            throw ApiException.invalid(e.field(), e.getMessage().substring(e.field().length() + 2));
        }
    }

    private static Map<String, Object> answer(String stream, Push push, PushOutcome outcome) {
        if (outcome instanceof PushOutcome.Gap gap) {
            throw new ApiException(ErrorCode.RESOURCE_CONFLICT, "sequence: producer '" + push.producerId()
                    + "' pushed sequence " + push.sequence() + " to stream '" + stream + "', but its next batch must "
                    + "carry sequence " + gap.expected() + " (expected_sequence " + gap.expected() + "); nothing "
                    + "was written: push the missing batches first");
        }
        PushOutcome.Committed committed = (PushOutcome.Committed) outcome;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("producer_id", push.producerId());
        out.put("committed_sequence", committed.committedSequence());
        out.put("table_version", committed.tableVersion());
        return out;
    }

    /**
     * Whether the stream is still registered, asked through its write fence: that waits for a delete in flight, so
     * a push that failed on a half-deleted table learns the delete's outcome rather than the files' state.
     */
    private boolean registered(String streamId, String location) {
        return writeLocks.forStream(streamId, location).run(() -> Boolean.TRUE).isPresent();
    }

    /**
     * A duplicate is acknowledged from the committer's memory of the table, without a commit and so without the write
     * fence: it stands only while the stream is still registered. Otherwise a stream deleted and created again under
     * its name by another server would have its first batches (sequences the old stream had seen) acknowledged and
     * never written, by a committer of the old stream this server still remembered.
     */
    private Uni<PushOutcome> stillThere(String streamId, Target target, PushOutcome outcome) {
        if (!(outcome instanceof PushOutcome.Committed committed) || !committed.duplicate()) {
            return Uni.createFrom().item(outcome);
        }
        return Blocking.call(() -> registered(streamId, target.location())).map(exists -> {
            if (!exists) {
                throw new StreamDeletedException(target.location());
            }
            return outcome;
        });
    }

    /** A deleted stream's committer is dropped, so a stream created again under the name starts afresh. */
    private Uni<Void> forgetIfDeleted(String id, Target target, Throwable e) {
        if (cause(e) instanceof StreamDeletedException) {
            targets.remove(id, target);
        }
        return Uni.createFrom().voidItem();
    }

    private static Throwable cause(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    private static Throwable failure(String stream, Throwable e) {
        Throwable cause = cause(e);
        if (cause instanceof StreamDeletedException) {
            return ApiException.notFound("stream '" + stream + "' was deleted; nothing of this batch was written");
        }
        if (cause instanceof GroupCommit.OverloadedException) {
            return new ApiException(ErrorCode.TEMPORARILY_UNAVAILABLE, cause.getMessage() + "; nothing of this "
                    + "batch was written: retry the same batch in a few seconds");
        }
        return cause;
    }

    @Override
    public void start(PipelineSpec spec) {
        // Nothing runs for a direct stream until its first push.
    }

    @Override
    public void stop(String streamId) {
        streams.clear(); // deleted here: no push may find it remembered (one created again is read afresh)
        Target target = targets.remove(streamId);
        if (target != null) {
            target.commits().close(new StreamDeletedException(target.location()));
        }
    }
}
