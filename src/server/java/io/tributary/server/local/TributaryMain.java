package io.tributary.server.local;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

/** The all-in-one server's entry point: local services first (when TRIBUTARY_LOCAL), then Quarkus. */
@QuarkusMain
public final class TributaryMain {
    private TributaryMain() {}

    public static void main(String... args) {
        try {
            LocalServices.startIfLocal();
        } catch (RuntimeException e) {
            System.err.println("Tributary cannot start: " + e.getMessage());
            System.exit(1);
        }
        Quarkus.run(args);
    }
}
