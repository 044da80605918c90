package io.tributary.server;

import static io.tributary.testing.KafkaTestSupport.coordinates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.CodedOutputStream;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/** Values decoded by the server pipeline: JSON (malformed counted and written as null), Avro, Protobuf and plain. */
class KafkaPipelineDecodingTest extends KafkaPipelineHarness {

    @Test
    void jsonValuesDecodeAndMalformedOnesAreCountedAndWrittenAsNull() {
        topics.createTopic("fmt-json", 1);
        PipelineSpec spec = stream("json", new Subscription.Topics(List.of("fmt-json")),
                new SchemaSource.JsonSchema(JSON), topics.endOffsets("fmt-json"));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, FAST, registry);
        pipeline.start();
        running.add(pipeline);
        for (int i = 0; i < 20; i++) {
            topics.send("fmt-json", 0, null, utf8(i % 5 == 0 ? "{\"id\":\"not a number\"}" : i % 7 == 0 ? "{oops"
                    : json(i)));
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 20);
        assertThat(coordinates(rows)).containsExactlyElementsOf(expected("fmt-json", 1, 0, 20));
        int malformed = 0;
        for (Map<String, Object> r : rows) {
            long i = (Long) r.get("kafka_offset");
            if (i % 5 == 0 || i % 7 == 0) {
                malformed++;
                assertThat(r.get("value")).isNull();
            } else {
                assertThat(r.get("value")).isEqualTo(Map.of("id", i, "name", "n" + i));
            }
        }
        int failures = malformed;
        await().untilAsserted(() -> assertThat(pipeline.status().decodeFailures()).isEqualTo(failures));
        Tags stream = Tags.of("stream", spec.streamName());
        assertThat(registry.get("tributary.ingest.records").tags(stream).counter().count()).isEqualTo(20);
        assertThat(registry.get("tributary.ingest.decode.failures").tags(stream).counter().count())
                .isEqualTo(failures);
        assertThat(registry.get("tributary.ingest.bytes").tags(stream).counter().count()).isPositive();
        assertThat(registry.get("tributary.ingest.commit.latency").tags(stream).timer().count()).isPositive();
        assertThat(registry.get("tributary.ingest.freshness").tags(stream).timer().count()).isEqualTo(20);
        await().untilAsserted(() -> assertThat(registry.get("tributary.ingest.lag")
                .tags(stream.and("topic", "fmt-json", "partition", "0")).gauge().value()).isZero());
        pipeline.stop();
        running.remove(pipeline);
        assertThat(registry.find("tributary.ingest.records").tags(stream).counter())
                .as("a stopped stream's meters are gone").isNull();
    }

    @Test
    void avroValues() throws Exception {
        topics.createTopic("fmt-avro", 1);
        PipelineSpec spec = stream("avro", new Subscription.Topics(List.of("fmt-avro")), new SchemaSource.Avro(AVRO),
                topics.endOffsets("fmt-avro"));
        start(spec, FAST);
        Schema schema = new Schema.Parser().parse(AVRO);
        GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
        for (int i = 0; i < 10; i++) {
            GenericRecord r = new GenericData.Record(schema);
            r.put("id", (long) i);
            r.put("name", "n" + i);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
            writer.write(r, enc);
            enc.flush();
            topics.send("fmt-avro", 0, null, i == 9 ? new byte[] {(byte) 0xff} : out.toByteArray());
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 10);
        assertThat(coordinates(rows)).containsExactlyElementsOf(expected("fmt-avro", 1, 0, 10));
        for (Map<String, Object> r : rows) {
            long i = (Long) r.get("kafka_offset");
            assertThat(r.get("value")).isEqualTo(i == 9 ? null : Map.of("id", i, "name", "n" + i));
        }
    }

    @Test
    void protobufValues() throws Exception {
        topics.createTopic("fmt-proto", 1);
        PipelineSpec spec = stream("proto", new Subscription.Topics(List.of("fmt-proto")),
                new SchemaSource.Protobuf(PROTO, "ex.Event"), topics.endOffsets("fmt-proto"));
        start(spec, FAST);
        for (int i = 0; i < 10; i++) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            out.writeInt64(1, i + 100);
            out.writeString(2, "n" + i);
            out.flush();
            topics.send("fmt-proto", 0, utf8("k" + i), bytes.toByteArray());
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 10);
        assertThat(coordinates(rows)).containsExactlyElementsOf(expected("fmt-proto", 1, 0, 10));
        for (Map<String, Object> r : rows) {
            long i = (Long) r.get("kafka_offset");
            assertThat(r.get("key")).isEqualTo("k" + i);
            assertThat(r.get("value")).isEqualTo(Map.of("id", i + 100, "name", "n" + i));
        }
    }

    @Test
    void plainStringsAndTheExactTableSchema() {
        topics.createTopic("fmt-plain", 1);
        PipelineSpec spec = stream("plain", new Subscription.Topics(List.of("fmt-plain")), new SchemaSource.Plain(),
                topics.endOffsets("fmt-plain"));
        start(spec, FAST);
        for (int i = 0; i < 10; i++) {
            topics.send("fmt-plain", 0, utf8("k" + i), utf8("héllo " + i));
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 10);
        assertThat(rows).extracting(r -> r.get("key") + "=" + r.get("value"))
                .containsExactly("k0=héllo 0", "k1=héllo 1", "k2=héllo 2", "k3=héllo 3", "k4=héllo 4", "k5=héllo 5",
                        "k6=héllo 6", "k7=héllo 7", "k8=héllo 8", "k9=héllo 9");
        assertThat(tables.columns(spec.tableLocation())).extracting(c -> c.name() + " " + c.type()).containsExactly(
                "key string", "value string", "stream_record_timestamp timestamp", "record_source string",
                "kafka_topic string", "kafka_partition int", "kafka_offset bigint");
    }

}
