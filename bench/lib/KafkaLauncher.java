import io.tributary.server.local.EmbeddedKafka;
import java.nio.file.Path;
import java.util.Map;

/**
 * The benches' broker (bench/lib/broker.sh): the server's own embedded Kafka on a free port, so a bench needs no fixed
 * port. It sets group.initial.rebalance.delay.ms to 0; BROKER_REBALANCE_DELAY_MS sets it (Kafka's own default is 3000).
 */
public final class KafkaLauncher {
    public static void main(String[] args) throws Exception {
        String delay = System.getenv("BROKER_REBALANCE_DELAY_MS");
        EmbeddedKafka kafka = EmbeddedKafka.start(Path.of(args[0]), 0,
                delay == null || delay.isBlank() ? Map.of() : Map.of("group.initial.rebalance.delay.ms", delay));
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::close));
        System.out.println("bootstrap " + kafka.bootstrapServers());
        Thread.currentThread().join();
    }
}
