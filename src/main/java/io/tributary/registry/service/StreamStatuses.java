package io.tributary.registry.service;

import io.smallrye.mutiny.Uni;
import io.tributary.delta.TableSnapshot;
import io.tributary.delta.Tables;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.IngestionStatusSource;
import io.tributary.registry.store.StreamRow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * A stream's ingestion status: the live one of a pipeline in this process, else what the table's own log says.
 */
@ApplicationScoped
class StreamStatuses {
    private static final Logger LOG = Logger.getLogger(StreamStatuses.class);

    @Inject
    Tables tables;
    @Inject
    Instance<IngestionStatusSource> statusSources;
    private volatile List<IngestionStatusSource> statusSourceList;

    Optional<IngestionStatus> live(String streamId) {
        List<IngestionStatusSource> sources = statusSourceList;
        if (sources == null) {
            // Resolved once: a list page asks for 50 statuses, and each walk of an Instance looks the beans up again.
            sources = statusSourceList = statusSources.stream().toList();
        }
        for (IngestionStatusSource source : sources) {
            Optional<IngestionStatus> status = source.status(streamId);
            if (status.isPresent()) {
                return status;
            }
        }
        return Optional.empty();
    }

    /**
     * The live status when this process runs the pipeline and has read the table, else what the table's own log says
     * (a pipeline that has just started does not know its table version yet).
     */
    Uni<IngestionStatus> of(StreamRow row, String location) {
        Optional<IngestionStatus> live = live(row.id)
                .filter(s -> s.tableVersion() >= 0 || s.state() == IngestionStatus.State.FAILED);
        if (live.isPresent()) {
            return Uni.createFrom().item(live.get());
        }
        return Blocking.call(() -> {
            try {
                TableSnapshot.Summary summary = tables.summary(location);
                TableSnapshot.Status s = summary.status();
                List<IngestionStatus.PartitionStatus> partitions = new ArrayList<>();
                var positions = summary.positions();
                positions.forEach((k, p) -> partitions.add(IngestionStatus.PartitionStatus.of(k, p, -1)));
                return new IngestionStatus(IngestionStatus.State.RUNNING, null, s.lastCommitAt().orElse(null),
                        s.version(), s.numRecords(), s.decodeFailures(), partitions,
                        IngestionStatus.TopicRecreation.of(positions), IngestionStatus.validThrough(partitions),
                        IngestionStatus.LostOffsets.of(positions));
            } catch (RuntimeException e) {
                LOG.warnf("reading the status of stream %s from its table failed: %s", row.fullName,
                        e.getClass().getName());
                return new IngestionStatus(IngestionStatus.State.FAILED, "the ingestion table at " + location
                        + " cannot be read", null, -1, 0, 0, List.of());
            }
        });
    }
}
