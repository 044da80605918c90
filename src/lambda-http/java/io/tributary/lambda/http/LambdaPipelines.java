package io.tributary.lambda.http;

import io.tributary.lambda.mappings.IngestMappings;
import io.tributary.lambda.mappings.MappingRecords;
import io.tributary.ingest.PipelineControl;
import io.tributary.ingest.PipelineSpec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The stream-api function's pipelines: a stream's event source mappings (IngestMappings), recorded in the registry
 * (MappingRecords). The registry calls start and stop on a worker thread, where the records' plain JDBC may block.
 */
@ApplicationScoped
public class LambdaPipelines implements PipelineControl {

    @Inject
    IngestMappings mappings;
    @Inject
    MappingRecords records;

    @Override
    public void start(PipelineSpec spec) {
        if (spec.subscription() instanceof io.tributary.ingest.Subscription.Direct) {
            return; // no Kafka, no mappings: its producers push through this function (SPEC "Direct ingest")
        }
        List<MappingRecords.Mapping> created = mappings.create(spec);
        try {
            records.record(spec.streamId(), created);
        } catch (RuntimeException e) {
            // Unrecorded mappings could never be deleted: remove them now; the registry then removes the stream.
            mappings.delete(spec.streamId(), ids(created));
            throw e;
        }
    }

    @Override
    public void stop(String streamId) {
        // Marked first, so the schedule's pattern refresh adds no mapping this delete would not see.
        mappings.delete(streamId, ids(records.beginStop(streamId)));
        records.forget(streamId);
    }

    /** The ids recorded for the stream; none when it has no mappings (never started, or stopped before). */
    List<String> mappingIds(String streamId) {
        return ids(records.mappings(streamId));
    }

    private static List<String> ids(List<MappingRecords.Mapping> mappings) {
        return mappings.stream().map(MappingRecords.Mapping::id).toList();
    }
}
