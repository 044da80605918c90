package io.tributary.lambda.backfill;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * An EventBridge event as the backfill schedule delivers it. Our own type because the aws-lambda-java-events
 * {@code ScheduledEvent} loses {@code detail-type} under Quarkus's mapper. The EventBridge Scheduler target sends the
 * constant input of function-configs/backfill (which has no {@code id}, {@code time} or {@code resources}); a
 * CloudWatch Events rule without input sends all fields. {@code time} stays text: no Java-time module is assumed.
 */
@RegisterForReflection
@JsonIgnoreProperties(ignoreUnknown = true)
public record ScheduledEvent(
        String version,
        String id,
        @JsonProperty("detail-type") String detailType,
        String source,
        String account,
        String time,
        String region,
        List<String> resources,
        JsonNode detail) {}
