package io.tributary.registry.service;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.concurrent.Callable;

/**
 * Runs blocking work (Kafka admin calls, Delta and S3 I/O, schema-registry lookups) on a worker thread and resumes on
 * the caller's Vert.x context, where Hibernate Reactive sessions must be used. Never call this inside a database
 * transaction: the transaction would stay open for the whole blocking call.
 */
public final class Blocking {
    private Blocking() {}

    public static <T> Uni<T> call(Callable<T> work) {
        Context context = Vertx.currentContext();
        if (context == null) {
            return Uni.createFrom().item(() -> {
                try {
                    return work.call();
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
        }
        return Uni.createFrom().completionStage(() -> context.executeBlocking(work, false).toCompletionStage());
    }

    public static Uni<Void> run(Runnable work) {
        return call(() -> {
            work.run();
            return null;
        });
    }
}
