package io.tributary.testing;

import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineControl;
import io.tributary.ingest.PipelineSpec;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Observes what the registry tells the runtime, next to whatever PipelineControl the runtime provides: each start
 * with its spec, and for each stop whether the stream's table still existed at that moment (it must: the pipeline
 * stops before the table is deleted).
 */
@Singleton // no client proxy: tests read the recorded lists directly
public class RecordingPipelines implements PipelineControl {
    public record Stop(String streamId, boolean tableExisted) {}

    public final List<PipelineSpec> started = new CopyOnWriteArrayList<>();
    public final List<Stop> stopped = new CopyOnWriteArrayList<>();

    @Inject
    Tables tables;

    @Override
    public void start(PipelineSpec spec) {
        started.add(spec);
    }

    @Override
    public void stop(String streamId) {
        boolean existed = started.stream().filter(s -> s.streamId().equals(streamId))
                .anyMatch(s -> tables.exists(s.tableLocation()));
        stopped.add(new Stop(streamId, existed));
    }
}
