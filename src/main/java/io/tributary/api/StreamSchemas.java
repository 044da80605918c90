package io.tributary.api;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.tributary.registry.request.StreamDefinition;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The OpenAPI shapes of the stream responses. The registry writes those as JSON itself ({@link
 * io.tributary.registry.view.JsonBody}), so nothing here is serialised: these types only describe the bytes.
 */
final class StreamSchemas {
    private StreamSchemas() {}

    @Schema(name = "StreamView", description = "The stream as created, plus its identity, state and statuses",
            allOf = {StreamDefinition.class, Status.class})
    static final class View {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @Schema(name = "StreamPage")
    record Page(List<View> streams,
            @Schema(description = "Absent on the last page; pass it as page_token for the next") String nextPageToken) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @Schema(name = "StreamStatus")
    record Status(String streamId,
            @Schema(description = "RFC 3339, UTC") String createdAt,
            String createdBy,
            @Schema(description = "Present when a pipeline of this process (or the table's log) knows it",
                    enumeration = {"RUNNING", "STALLED", "FAILED"}) String state,
            String stateMessage,
            IngestionStatus ingestionStatus,
            BackfillStatus backfillStatus) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @Schema(name = "StreamIngestionStatus")
    record IngestionStatus(String lastCommitAt, Long tableVersion, long rowsIngested, long decodeFailures,
            @Schema(description = "RFC 3339, UTC: the oldest of the partitions' newest committed record timestamps; "
                    + "absent while a partition has no committed record") String validThrough,
            List<Partition> partitions,
            @Schema(description = "Absent until a topic of the stream is found deleted and created again")
            List<TopicRecreation> topicRecreations,
            @Schema(description = "Absent until offsets of a partition are found deleted from Kafka (retention, "
                    + "DeleteRecords) before the stream read them")
            List<LostOffsets> lostOffsets,
            @Schema(description = "Rows still holding rescued data; only in GET of one stream with "
                    + "ingestion_config.rescue_undecodable (SPEC 4.3)")
            Long rescuedRecords) {}


    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @Schema(name = "StreamLostOffsets", description = "The last range of a partition's offsets that Kafka had deleted "
            + "before the stream read them; the stream went on from the first offset the topic still had")
    record LostOffsets(String topic, int partition, long fromOffset,
            @Schema(description = "Exclusive") long toOffset,
            @Schema(description = "Every offset of the partition lost so far") long totalOffsetsLost,
            @Schema(description = "RFC 3339, UTC") String detectedAt,
            String message) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @Schema(name = "StreamTopicRecreation", description = "The last time a topic was found deleted and created again "
            + "under the same name; its new incarnation is ingested from its beginning")
    record TopicRecreation(String topic,
            @Schema(description = "Absent when the table's positions predate topic ids") String previousTopicId,
            String topicId,
            @Schema(description = "RFC 3339, UTC") String detectedAt,
            String message) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @Schema(name = "StreamPartitionStatus")
    record Partition(String topic, int partition, long committedOffset, Long lag,
            @Schema(description = "RFC 3339, UTC: when a commit last added records of this partition") String lastCommitAt,
            @Schema(description = "RFC 3339, UTC: the newest committed record timestamp of this partition")
            String validThrough) {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @Schema(name = "StreamBackfillStatus")
    record BackfillStatus(
            @Schema(enumeration = {"NOT_CONFIGURED", "WAITING_FOR_OVERLAP", "MERGING", "COMPLETED", "FAILED"})
            String state,
            String backfillMaxTimestamp, String ingestionMinTimestamp, boolean forced, Long rowsMerged,
            String completedAt) {}
}
