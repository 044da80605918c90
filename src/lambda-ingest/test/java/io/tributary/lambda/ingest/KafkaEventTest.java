package io.tributary.lambda.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.SourceRecord;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KafkaEventTest {

    // The shape AWS documents for an MSK trigger, including a header and a topic name that contains '-'.
    private static final String MSK = """
            {"eventSource": "aws:kafka",
             "eventSourceArn": "arn:aws:kafka:eu-west-1:123456789012:cluster/vpc-2priv-2pub/751d2973-a626-431c-9d4e-d7975eb44dd7-2",
             "bootstrapServers": "b-2.demo-cluster-1.a1bcde.c1.kafka.eu-west-1.amazonaws.com:9092",
             "records": {
               "tx-eu-1": [
                 {"topic": "tx-eu", "partition": 1, "offset": 16, "timestamp": 1545084650988,
                  "timestampType": "CREATE_TIME", "key": "azI=", "value": "djI=",
                  "headers": [{"trace": [104, 105]}]},
                 {"topic": "tx-eu", "partition": 1, "offset": 15, "timestamp": 1545084650987,
                  "timestampType": "CREATE_TIME", "key": "azE=", "value": "djE=", "headers": []}
               ],
               "tx-eu-0": [
                 {"topic": "tx-eu", "partition": 0, "offset": 3, "timestamp": 1545084650000,
                  "timestampType": "LOG_APPEND_TIME", "value": null, "headers": []}
               ]
             }}
            """;

    private static final String SELF_MANAGED = """
            {"eventSource": "SelfManagedKafka",
             "bootstrapServers": "b1.example.com:9092,b2.example.com:9092",
             "records": {"orders-0": [
               {"topic": "orders", "partition": 0, "offset": 0, "timestamp": 1700000000000,
                "timestampType": "CREATE_TIME", "value": "eyJhIjoxfQ==", "headers": []}]}}
            """;

    @Test
    void parsesAnMskEventIntoRecordsInPartitionAndOffsetOrder() {
        KafkaEvent event = KafkaEvent.parse(MSK.getBytes(StandardCharsets.UTF_8));

        assertThat(event.eventSource()).isEqualTo(KafkaEvent.MSK);
        assertThat(event.eventSourceArn()).startsWith("arn:aws:kafka:eu-west-1:123456789012:cluster/");
        assertThat(event.records()).extracting(SourceRecord::partition, SourceRecord::offset, SourceRecord::timestampMs)
                .containsExactly(
                        tuple(0, 3L, 1545084650000L),
                        tuple(1, 15L, 1545084650987L),
                        tuple(1, 16L, 1545084650988L));
        SourceRecord first = event.records().get(1);
        assertThat(first.topic()).isEqualTo("tx-eu");
        assertThat(new String(first.key(), StandardCharsets.UTF_8)).isEqualTo("k1");
        assertThat(new String(first.value(), StandardCharsets.UTF_8)).isEqualTo("v1");
        SourceRecord tombstone = event.records().get(0);
        assertThat(tombstone.key()).isNull();
        assertThat(tombstone.value()).isNull();
    }

    @Test
    void becomesOneMicroBatchGroupedByPartition() {
        MicroBatch batch = KafkaEvent.parse(MSK.getBytes(StandardCharsets.UTF_8)).microBatch(record -> true);

        assertThat(batch.size()).isEqualTo(3);
        assertThat(batch.byteSize()).isEqualTo(8); // k1 v1 k2 v2; the tombstone weighs nothing
        assertThat(batch.partitions()).hasSize(2);
        assertThat(batch.partitions().values()).allSatisfy(records ->
                assertThat(records).extracting(SourceRecord::offset).isSorted());
    }

    @Test
    void parsesASelfManagedEventWithoutAnEventSourceArn() {
        KafkaEvent event = KafkaEvent.parse(SELF_MANAGED.getBytes(StandardCharsets.UTF_8));

        assertThat(event.eventSource()).isEqualTo(KafkaEvent.SELF_MANAGED);
        assertThat(event.eventSourceArn()).isNull();
        assertThat(event.bootstrapServers()).isEqualTo("b1.example.com:9092,b2.example.com:9092");
        assertThat(event.records()).singleElement().satisfies(r -> {
            assertThat(r.topic()).isEqualTo("orders");
            assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
        });
    }

    @Test
    void rejectsOtherEventSourcesAndMalformedFieldsNamingTheField() {
        assertThatThrownBy(() -> parse("{\"eventSource\": \"aws:sqs\", \"records\": {}}"))
                .isInstanceOf(InvalidKafkaEventException.class).hasMessageContaining("eventSource is 'aws:sqs'");
        assertThatThrownBy(() -> parse("{\"eventSource\": \"aws:kafka\", \"records\": {}}"))
                .hasMessageContaining("eventSourceArn is missing");
        assertThatThrownBy(() -> parse("not json")).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> parse(SELF_MANAGED.replace("\"offset\": 0", "\"offset\": \"zero\"")))
                .hasMessageContaining("records['orders-0'][0].offset must be an integer");
        assertThatThrownBy(() -> parse(SELF_MANAGED.replace("eyJhIjoxfQ==", "%%%")))
                .hasMessageContaining("records['orders-0'][0].value is not valid base64")
                .hasMessageNotContaining("%%%");
        assertThatThrownBy(() -> parse(SELF_MANAGED.replace("\"orders-0\"", "\"orders-1\"")))
                .hasMessageContaining("is from orders-0 but listed under 'orders-1'");
    }

    @Test
    void takesTheStreamFromTheInvokingAlias() {
        assertThat(StreamAlias.streamId("arn:aws:lambda:eu-west-1:123456789012:function:tributary-ingest:stream-42ab"))
                .isEqualTo("42ab");
        assertThatThrownBy(() -> StreamAlias.streamId("arn:aws:lambda:eu-west-1:123456789012:function:tributary-ingest"))
                .hasMessageContaining("must be invoked through a stream alias");
        assertThatThrownBy(() -> StreamAlias.streamId("arn:aws:lambda:eu-west-1:123456789012:function:f:$LATEST"))
                .hasMessageContaining("must be invoked through a stream alias");
    }

    private static KafkaEvent parse(String json) {
        return KafkaEvent.parse(json.getBytes(StandardCharsets.UTF_8));
    }
}
