package io.tributary.api;

import io.smallrye.mutiny.Uni;
import io.tributary.registry.health.RegistryHealth;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Keeps the API answering while the registry database does not: a call made while it is down is refused before it
 * starts (so it changes nothing), and a call already waiting on it fails as soon as the probe finds it down, both
 * with 503 TEMPORARILY_UNAVAILABLE naming the database. Long calls on a healthy database (a create that checks the
 * Kafka topic, a delete of many files) are not cut short: only the outage ends them.
 */
@NeedsRegistry
@Interceptor
@Priority(Interceptor.Priority.APPLICATION)
public class RegistryGate {
    @Inject
    RegistryHealth health;

    @AroundInvoke
    Object gate(InvocationContext call) throws Exception {
        if (health.failure() != null) {
            return Uni.createFrom().failure(health.unavailable());
        }
        Object result = call.proceed();
        if (result instanceof Uni<?> work) {
            return health.untilDown(work);
        }
        return result;
    }
}
