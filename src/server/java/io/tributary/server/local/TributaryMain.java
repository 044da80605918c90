package io.tributary.server.local;

import io.quarkus.runtime.Quarkus;
import io.tributary.config.ProcessLocale;
import io.quarkus.runtime.annotations.QuarkusMain;

/** The all-in-one server's entry point: a locale-neutral JVM, local services (when TRIBUTARY_LOCAL), then Quarkus. */
@QuarkusMain
public final class TributaryMain {
    private TributaryMain() {}

    public static void main(String... args) {
        ProcessLocale.pin();
        try {
            LocalServices.startIfLocal();
        } catch (RuntimeException e) {
            System.err.println("Tributary cannot start: " + e.getMessage());
            System.exit(1);
        }
        Quarkus.run(args);
    }
}
