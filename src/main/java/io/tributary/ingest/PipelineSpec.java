package io.tributary.ingest;

import io.tributary.schema.SchemaSource;
import java.time.Instant;
import java.util.Map;

/**
 * Everything a pipeline needs to run one stream, with secrets already decrypted. {@code kafkaProperties} are Kafka
 * client properties (bootstrap.servers and the security settings of the connection); they hold secrets, so this
 * record's toString hides them. {@code rescueUndecodable}: the table has the {@code _rescued_data} column and the raw
 * bytes of records that do not decode are kept there (SPEC "Rescued records").
 */
public record PipelineSpec(
        String streamId,
        String streamName,
        String tableLocation,
        Subscription subscription,
        Map<String, String> kafkaProperties,
        SchemaSource keySchema,
        SchemaSource valueSchema,
        Instant createdAt,
        boolean rescueUndecodable) {

    /** A stream without {@code rescue_undecodable}: an undecodable side is NULL and counted, its bytes not kept. */
    public PipelineSpec(String streamId, String streamName, String tableLocation, Subscription subscription,
            Map<String, String> kafkaProperties, SchemaSource keySchema, SchemaSource valueSchema, Instant createdAt) {
        this(streamId, streamName, tableLocation, subscription, kafkaProperties, keySchema, valueSchema, createdAt,
                false);
    }

    @Override
    public String toString() {
        return "PipelineSpec[" + streamName + " (" + streamId + ") -> " + tableLocation + "]";
    }
}
