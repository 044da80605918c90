import io.tributary.server.local.EmbeddedKafka;
import java.nio.file.Path;
import java.util.Map;

/** bench/online's broker: the server's own embedded Kafka on a free port, so the bench needs no fixed port. */
public final class KafkaLauncher {
    public static void main(String[] args) throws Exception {
        EmbeddedKafka kafka = EmbeddedKafka.start(Path.of(args[0]), 0, Map.of());
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::close));
        System.out.println("bootstrap " + kafka.bootstrapServers());
        Thread.currentThread().join();
    }
}
