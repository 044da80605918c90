package io.tributary.api;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;

import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** What the stream API tests start from: a KAFKA connection and a topic with records on some partitions. */
final class StreamsFixture {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";

    record Source(String connection, String topic) {}

    private StreamsFixture() {}

    /** A new connection and a 3-partition topic: 5 records on partition 0, 1 on partition 2, none on 1. */
    static Source create(String bootstrap) throws Exception {
        String connection = unique("kafka");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        String topic = unique("tx");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
        }
        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", bootstrap),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "{\"id\": \"" + i + "\"}")).get();
            }
            producer.send(new ProducerRecord<>(topic, 2, "k", "{}")).get();
        }
        return new Source(connection, topic);
    }

    static String createdName(String prefix) {
        return "main." + unique("sch") + "." + prefix;
    }

    static Schema plainRowSchema() {
        SideSchema plain = SideSchema.compile(new SchemaSource.Plain(), "x");
        return StreamSchema.of(plain, plain).rowSchema();
    }
}
