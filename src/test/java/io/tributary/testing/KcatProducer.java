package io.tributary.testing;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What {@code kcat -P -b <brokers> -t <topic>} does with the README's input: each line of stdin one record, no key.
 * The README walk-through test puts it on the PATH as {@code kcat}, so the README's lines run as written on a machine
 * without kcat.
 */
public final class KcatProducer {

    private KcatProducer() {}

    public static void main(String[] args) throws Exception {
        String brokers = null;
        String topic = null;
        boolean produce = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-P" -> produce = true;
                case "-b" -> brokers = args[++i];
                case "-t" -> topic = args[++i];
                default -> throw new IllegalArgumentException("kcat stand-in: option " + args[i] + " is not known");
            }
        }
        if (!produce || brokers == null || topic == null) {
            throw new IllegalArgumentException("kcat stand-in: only -P -b <brokers> -t <topic> is known");
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers), new StringSerializer(), new StringSerializer());
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                producer.send(new ProducerRecord<>(topic, null, line)).get();
            }
        }
    }
}
