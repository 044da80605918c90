package io.tributary.runtime;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.registry.StreamDirectory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * On server start: makes sure the lifecycle topic exists, then starts every registered stream. Runs in the
 * background and retries, because in local mode the database and the broker may still be coming up.
 */
@ApplicationScoped
class StreamsAtStartup {

    static final String LIFECYCLE_TOPIC = "tributary.stream-lifecycle";
    private static final Logger LOG = Logger.getLogger(StreamsAtStartup.class);
    private static final int PAGE = 500;

    private final ServerPipelines pipelines;
    private final StreamDirectory directory;
    private final String bootstrapServers;
    private volatile Thread starter;

    @Inject
    StreamsAtStartup(ServerPipelines pipelines, StreamDirectory directory,
            @ConfigProperty(name = "kafka.bootstrap.servers", defaultValue = "localhost:9092") String bootstrapServers) {
        this.pipelines = pipelines;
        this.directory = directory;
        this.bootstrapServers = bootstrapServers;
    }

    void onStart(@Observes StartupEvent event) {
        Thread t = new Thread(this::startAll, "tributary-start-streams");
        t.setDaemon(true);
        starter = t;
        t.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        Thread t = starter;
        if (t != null) {
            t.interrupt();
        }
    }

    private void startAll() {
        boolean topicReady = false;
        for (long backoff = 1000; !Thread.currentThread().isInterrupted(); backoff = Math.min(backoff * 2, 30_000)) {
            try {
                if (!topicReady) {
                    createLifecycleTopic();
                    topicReady = true;
                }
                int started = 0;
                String after = null;
                do {
                    String from = after;
                    StreamDirectory.Page page = VertxContextSupport.subscribeAndAwait(
                            () -> directory.page(from, PAGE));
                    page.specs().forEach(pipelines::startHere);
                    started += page.specs().size();
                    after = page.lastId();
                } while (after != null);
                LOG.infof("started the pipelines of %d registered streams", started);
                return;
            } catch (Throwable e) {
                LOG.warnf("starting the registered streams failed, retrying in %d ms: %s", backoff, e.getMessage());
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private void createLifecycleTopic() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers,
                "default.api.timeout.ms", "15000", "request.timeout.ms", "10000"))) {
            admin.createTopics(List.of(new NewTopic(LIFECYCLE_TOPIC, 1, (short) -1))).all().get();
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }
}
