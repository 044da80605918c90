package io.tributary.runtime.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.KafkaClientService;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A function starts no Kafka client of its own (src/lambda-common/resources/META-INF/microprofile-config.properties
 * disables the server's stream lifecycle channels): the test broker is the one SmallRye would use, yet after start-up
 * no channel has a Kafka client, none is registered in JMX, and the broker has no lifecycle consumer group.
 */
@Tag("quarkus")
@QuarkusTest
class NoLifecycleChannelTest {

    @Inject
    KafkaClientService clients;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void noLifecycleProducerOrConsumerAtStartUp() throws Exception {
        assertThat(clients.getProducerChannels()).isEmpty();
        assertThat(clients.getConsumerChannels()).isEmpty();
        // Kafka clients register their metrics MBeans when they are created, whoever created them.
        assertThat(ManagementFactory.getPlatformMBeanServer()
                .queryNames(new ObjectName("kafka.*:client-id=*stream-lifecycle*,*"), null)).isEmpty();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            assertThat(admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS))
                    .extracting(ConsumerGroupListing::groupId)
                    .noneMatch(group -> group.startsWith("tributary-lifecycle-"));
        }
    }
}
