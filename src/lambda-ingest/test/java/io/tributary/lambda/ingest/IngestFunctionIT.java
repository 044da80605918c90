package io.tributary.lambda.ingest;

import io.tributary.lambda.PackagedFunction;
import io.tributary.lambda.RegistryRows;
import io.tributary.lambda.RuntimeApi;
import static org.assertj.core.api.Assertions.assertThat;

import io.restassured.path.json.JsonPath;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The packaged ingest function ({@code function.zip}: the JVM build here, the native binary in the native workflow),
 * started as a process ({@link PackagedFunction}) and invoked through the Lambda runtime API this test serves: an MSK batch invoking the stream's alias lands
 * in the stream's Delta table (read back with Delta Kernel's scan), and the same batch delivered again adds nothing.
 * The stream is registered the way stream-api leaves it ({@link RegistryRows}); nothing is injected, so the test
 * runs unchanged against the native binary.
 */
class IngestFunctionIT {
    static final String INGEST_ARN = "arn:aws:lambda:eu-west-1:123456789012:function:tributary-ingest";
    static final String PAYLOAD_SCHEMA = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
            + "\"amount\":{\"type\":\"number\"}}}";
    static final Duration TIMEOUT = Duration.ofMinutes(2);

    @RegisterExtension
    static final PackagedFunction FUNCTION = new PackagedFunction(Map::of);

    @Test
    void anMskBatchLandsInDeltaAndTheSameBatchAgainLandsOnce() throws Exception {
        Tables tables = RegistryRows.tables();
        RegistryRows.connection("it-kafka", RegistryRows.brokerWith("tx", 2));
        RegistryRows.Registered stream = RegistryRows.stream(tables, "it-kafka", "it_ingest", "tx", "tx", PAYLOAD_SCHEMA,
                null, "NOT_CONFIGURED", Map.of(new PartitionKey("tx", 0), 0L, new PartitionKey("tx", 1), 0L));
        long now = System.currentTimeMillis();
        List<IngestFixtures.Rec> records = List.of(
                new IngestFixtures.Rec("tx", 0, 0, now, "k1", "{\"id\":\"a1\",\"amount\":1.5}"),
                new IngestFixtures.Rec("tx", 0, 1, now + 1, "k2", "not json"),
                new IngestFixtures.Rec("tx", 1, 0, now + 2, null, "{\"id\":\"b1\",\"amount\":2}"));
        String event = IngestFixtures.mskEvent(records);
        String alias = INGEST_ARN + ":" + StreamAlias.PREFIX + stream.id();

        JsonPath first = JsonPath.from(FUNCTION.invoke(alias, event, TIMEOUT).ok().body());
        assertThat(first.getString("stream_id")).isEqualTo(stream.id());
        assertThat(first.getInt("records")).isEqualTo(3);
        assertThat(first.getInt("rows_added")).isEqualTo(3);
        assertThat(first.getInt("table_version")).isEqualTo(1);
        List<String> expected = List.of("k1 a1|1.5 tx/0/0", "k2 null tx/0/1", "null b1|2.0 tx/1/0");
        assertThat(rows(tables, stream.location())).containsExactlyInAnyOrderElementsOf(expected);

        JsonPath again = JsonPath.from(FUNCTION.invoke(alias, event, TIMEOUT).ok().body());
        assertThat(again.getInt("records")).isEqualTo(3);
        assertThat(again.getInt("rows_added")).isZero();
        assertThat((Object) again.get("table_version")).isNull();
        assertThat(rows(tables, stream.location())).containsExactlyInAnyOrderElementsOf(expected);

        // Not through a stream alias: the function fails the batch (Lambda's error object), so the mapping retries.
        RuntimeApi.Invocation unqualified = FUNCTION.invoke(INGEST_ARN + ":$LATEST", event, TIMEOUT);
        assertThat(unqualified.status()).isEqualTo(500);
        assertThat(unqualified.body()).contains("must be invoked through a stream alias");

        FUNCTION.assertPolledByTheFunction();
    }

    /** "key id|amount topic/partition/offset" of every row, read with Delta Kernel's scan. */
    static List<String> rows(Tables tables, String location) {
        List<String> out = new ArrayList<>();
        try (TableRows rows = tables.read(location)) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                Map<?, ?> value = (Map<?, ?>) row.get("value");
                out.add(row.get("key") + " " + (value == null ? null : value.get("id") + "|" + value.get("amount"))
                        + " " + row.get("kafka_topic") + "/" + row.get("kafka_partition") + "/" + row.get("kafka_offset"));
            }
        }
        return out;
    }
}
