package io.tributary.lambda.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ScheduledEventTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void readsTheScheduleInputOfFunctionConfigsIncludingDetailType() throws Exception {
        Properties config = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of("function-configs/backfill/function.properties"))) {
            config.load(reader);
        }

        ScheduledEvent event = JSON.readValue(config.getProperty("function.trigger.input"), ScheduledEvent.class);

        assertThat(event.source()).isEqualTo(BackfillHandler.SCHEDULER_SOURCE);
        assertThat(event.detailType()).isEqualTo("Tributary Backfill Check");
        assertThat(event.detail().isObject()).isTrue();
    }

    @Test
    void readsAnEventBridgeRuleEvent() throws Exception {
        ScheduledEvent event = JSON.readValue("""
                {"version": "0", "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa", "detail-type": "Scheduled Event",
                 "source": "aws.events", "account": "123456789012", "time": "2026-11-30T08:00:00Z",
                 "region": "eu-west-1", "resources": ["arn:aws:events:eu-west-1:123456789012:rule/backfill"],
                 "detail": {}, "replay-name": "ignored"}
                """, ScheduledEvent.class);

        assertThat(event.detailType()).isEqualTo("Scheduled Event");
        assertThat(event.time()).isEqualTo("2026-11-30T08:00:00Z");
        assertThat(event.resources()).containsExactly("arn:aws:events:eu-west-1:123456789012:rule/backfill");
    }

    @Test
    void theHandlerRunsOnlyFromItsSchedule() {
        ScheduledEvent other = new ScheduledEvent("0", "1", "Object Created", "aws.s3", null, null, null, null, null);

        assertThatThrownBy(() -> new BackfillHandler().handleRequest(other, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("source is 'aws.s3'");
        assertThatThrownBy(() -> new BackfillHandler().handleRequest(null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
