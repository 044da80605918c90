package io.tributary.config;

import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Locale;

/**
 * Every Tributary process formats and case-maps locale-neutrally, whatever the machine's locale. The libraries it runs
 * take the JVM's default: Delta Kernel names commit files with {@code String.format("%020d")} (in Arabic digits under
 * {@code ar_EG}: a create failed, leaving a log no reader finds), and Kafka's broker upper-cases {@code classic} with
 * Turkish rules ({@code CLASSİC}: local mode stopped before it started). Nothing Tributary says depends on the locale
 * (its messages are English), so the whole default is pinned, not just the format category.
 *
 * <p>The server pins it in its main method, before local mode's embedded services; the Lambda functions, which have
 * no main of ours, at the first start-up observer.
 */
@ApplicationScoped
public class ProcessLocale {

    public static void pin() {
        Locale.setDefault(Locale.ROOT);
    }

    void atStartup(@Observes @Priority(-1000) StartupEvent event) {
        pin();
    }
}
