package io.tributary.ingest;

import io.tributary.schema.SchemaSource;
import java.time.Instant;
import java.util.Map;

/**
 * Everything a pipeline needs to run one stream, with secrets already decrypted. {@code kafkaProperties} are Kafka
 * client properties (bootstrap.servers and the security settings of the connection); they hold secrets, so this
 * record's toString hides them.
 */
public record PipelineSpec(
        String streamId,
        String streamName,
        String tableLocation,
        Subscription subscription,
        Map<String, String> kafkaProperties,
        SchemaSource keySchema,
        SchemaSource valueSchema,
        Instant createdAt) {

    @Override
    public String toString() {
        return "PipelineSpec[" + streamName + " (" + streamId + ") -> " + tableLocation + "]";
    }
}
