package io.tributary.lambda.ingest;

import io.quarkus.vertx.VertxContextSupport;
import io.tributary.delta.Tables;
import io.tributary.ingest.CommitResult;
import io.tributary.ingest.KafkaRecordReader;
import io.tributary.ingest.KafkaTopicIds;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.SourceRecord;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.lock.StreamWriteLocks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Ingests one Kafka event into its stream's table with the exactly-once core ({@link io.tributary.ingest
 * .StreamIngester}). The ingester of each stream stays warm across invocations of the same execution environment:
 * its table positions are then known and the registry is not read again. Any failure discards it, so the retried
 * batch starts from what the table says. Every commit runs under the stream's write lock ({@link StreamWriteLocks}),
 * which a delete takes exclusively: an invocation running while, or warm after, the stream is deleted commits nothing
 * and removes the files it wrote ({@link io.tributary.ingest.StreamDeletedException}, which fails the invocation).
 */
@ApplicationScoped
public class StreamIngestion {

    @Inject
    StreamDirectory directory;
    @Inject
    Tables tables;
    @Inject
    StreamWriteLocks writeLocks;
    @Inject
    io.tributary.registry.online.SyncRunner synced;
    @Inject
    io.tributary.registry.features.FeatureViews features;

    private final Map<String, Warm> warm = new ConcurrentHashMap<>();

    /**
     * {@code topicIds} and {@code reader} reach the stream's cluster directly: an MSK event names no topic id, and after
     * a topic was deleted and created again the mapping may deliver from the old topic's offsets, so the new topic's
     * first records are read here (see {@link io.tributary.ingest.StreamIngester#recordReader}).
     */
    private record Warm(String streamName, OpenedIngester opened, Predicate<SourceRecord> subscribed,
            KafkaTopicIds topicIds, KafkaRecordReader reader, String location) {
        void close() {
            topicIds.close();
            reader.close();
        }
    }

    /** What one invocation did. {@code tableVersion} is empty when the table already had every record. */
    public record Outcome(String streamId, int records, long rowsAdded, Optional<Long> tableVersion) {}

    /**
     * Called on the Lambda handler thread (no Vert.x context): the registry is read through
     * {@link VertxContextSupport#subscribeAndAwait}. Throws on any storage or registry error, so the mapping redelivers
     * the whole batch.
     */
    public Outcome ingest(String streamId, KafkaEvent event) {
        Warm stream = warm.computeIfAbsent(streamId, this::open);
        MicroBatch batch = event.microBatch(stream.subscribed());
        // Every line of this invocation names its stream (the JSON log's mdc, on by default in the functions).
        io.tributary.logs.LogContext.stream(stream.streamName());
        try {
            Optional<CommitResult> result = stream.opened().ingester().ingest(batch);
            if (result.isPresent()) {
                // What this invocation committed reaches the stream's CONTINUOUS synced tables before it returns (a
                // frozen function runs nothing later); a failed sync is left to the backfill function's catch-up.
                synced.runContinuousOf(stream.location());
                // And its feature views, for the same reason; a failed round is left to the same catch-up.
                features.runOf(stream.location());
            }
            return new Outcome(streamId, batch.size(), result.map(CommitResult::rows).orElse(0L),
                    result.map(CommitResult::tableVersion));
        } catch (RuntimeException e) {
            if (warm.remove(streamId, stream)) {
                stream.close();
            }
            throw e;
        }
    }

    private Warm open(String streamId) {
        PipelineSpec spec;
        try {
            spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(streamId))
                    .orElseThrow(() -> new IllegalStateException("stream " + streamId + " is not registered: it was "
                            + "deleted, or the event source mapping points at a stale alias; delete that mapping"));
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot read stream " + streamId + " from the registry", e);
        }
        OpenedIngester opened = OpenedIngester.open(tables, spec,
                writeLocks.forStream(spec.streamId(), spec.tableLocation()));
        KafkaTopicIds topicIds = new KafkaTopicIds(spec.kafkaProperties());
        KafkaRecordReader reader = new KafkaRecordReader(spec.kafkaProperties());
        opened.ingester().topicIds(topicIds).recordReader(reader);
        return new Warm(spec.streamName(), opened, Subscribed.by(spec.subscription()), topicIds, reader,
                spec.tableLocation());
    }
}
