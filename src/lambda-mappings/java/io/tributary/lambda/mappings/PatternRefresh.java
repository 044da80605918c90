package io.tributary.lambda.mappings;

import io.quarkus.vertx.VertxContextSupport;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.jboss.logging.Logger;

/**
 * The schedule's share of a {@code subscribe_pattern} stream on AWS (the server's consumer follows its pattern by
 * itself every topic-refresh): each run resolves every started pattern stream's pattern against its cluster's topics
 * again, adds a mapping for each topic that started to match (read from its beginning, see {@link IngestMappings})
 * and removes those of topics that no longer exist. A stream that fails (its cluster unreachable, an AWS error) is
 * reported and retried at the next run; the others go on. Each cluster is listed once per run, so an unreachable
 * one costs one Kafka timeout however many streams use it.
 */
@ApplicationScoped
public class PatternRefresh {
    private static final Logger LOG = Logger.getLogger(PatternRefresh.class);

    /** What one run did; {@code failures} names each stream that failed and why. */
    public record Summary(int streamsChecked, int mappingsAdded, int mappingsRemoved, List<String> failures) {}

    @Inject
    MappingRecords records;
    @Inject
    IngestMappings mappings;
    @Inject
    StreamDirectory directory;

    /** Never throws: a failure to list the streams is reported as one failure. Call from a plain (blocking) thread. */
    public Summary run() {
        List<String> streamIds;
        try {
            streamIds = records.patternStreams();
        } catch (RuntimeException e) {
            LOG.warnf("cannot list the subscribe_pattern streams to refresh their event source mappings: %s",
                    e.getMessage());
            return new Summary(0, 0, 0, List.of("listing the subscribe_pattern streams: " + e.getMessage()));
        }
        IngestMappings.TopicNames perCluster = onceEachCluster(mappings.topicNames());
        int added = 0;
        int removed = 0;
        List<String> failures = new ArrayList<>();
        for (String streamId : streamIds) {
            try {
                Optional<MappingRecords.Change> change = refresh(streamId, perCluster);
                if (change.isPresent()) {
                    added += change.get().added().size();
                    removed += change.get().removed().size();
                }
            } catch (RuntimeException e) {
                String failure = "stream " + streamId + ": " + e.getMessage();
                LOG.warnf("refreshing the event source mappings failed, retrying at the next run: %s", failure);
                failures.add(failure);
            }
        }
        return new Summary(streamIds.size(), added, removed, List.copyOf(failures));
    }

    private Optional<MappingRecords.Change> refresh(String streamId, IngestMappings.TopicNames topicNames) {
        Optional<PipelineSpec> found;
        try {
            found = VertxContextSupport.subscribeAndAwait(() -> directory.byId(streamId));
        } catch (Throwable e) {
            throw new IllegalStateException("cannot read the stream from the registry: " + e.getMessage(), e);
        }
        if (found.isEmpty()) {
            return Optional.empty(); // deleted since the listing
        }
        PipelineSpec spec = found.get();
        // Outside the row lock: listing an unreachable cluster takes the whole Kafka timeout.
        SortedSet<String> topics = mappings.topics(spec, topicNames);
        List<MappingRecords.Mapping> created = new ArrayList<>();
        try {
            return records.update(streamId, current -> {
                Set<String> mapped = new TreeSet<>();
                List<String> gone = new ArrayList<>();
                for (MappingRecords.Mapping m : current) {
                    mapped.add(m.topic());
                    if (m.topic() != null && !topics.contains(m.topic())) {
                        gone.add(m.id());
                    }
                }
                // Removed first: if adding fails, the transaction leaves the removed rows, and the next run removes
                // them again (a repeated delete is harmless); add() itself deletes what it created before failing.
                mappings.remove(gone);
                SortedSet<String> fresh = new TreeSet<>(topics);
                fresh.removeAll(mapped);
                created.addAll(mappings.add(spec, fresh));
                return new MappingRecords.Change(List.copyOf(created), gone);
            });
        } catch (RuntimeException e) {
            if (!created.isEmpty()) {
                // Created but not recorded (the commit failed): nothing could ever delete them.
                try {
                    mappings.remove(created.stream().map(MappingRecords.Mapping::id).toList());
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        }
    }

    /** Lists each cluster (the same Kafka client properties) at most once, remembering a failure as well. */
    private static IngestMappings.TopicNames onceEachCluster(IngestMappings.TopicNames names) {
        Map<Map<String, String>, Object> listed = new HashMap<>();
        return properties -> {
            Object result = listed.computeIfAbsent(properties, p -> {
                try {
                    return names.list(p);
                } catch (RuntimeException e) {
                    return e;
                }
            });
            if (result instanceof RuntimeException e) {
                throw e;
            }
            @SuppressWarnings("unchecked")
            SortedSet<String> topics = (SortedSet<String>) result;
            return topics;
        };
    }
}
