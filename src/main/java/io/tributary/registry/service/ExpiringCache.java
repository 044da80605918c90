package io.tributary.registry.service;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Values kept for a short time, each loaded by one caller at a time: when an entry expires under a thousand requests
 * a second, one of them reads it again and the others wait for that read instead of each querying the registry. A
 * failed load is not kept (the next caller tries again), so a 403 or 404 is never served from the cache.
 */
final class ExpiringCache<K, V> {
    private record Entry<V>(CompletableFuture<V> value, long until) {}

    private final ConcurrentHashMap<K, Entry<V>> entries = new ConcurrentHashMap<>();
    private final long ttlNanos;

    ExpiringCache(Duration ttl) {
        this.ttlNanos = ttl.toNanos();
    }

    /** The value of {@code key}; {@code load} (a blocking read, run on a worker) when it is missing or expired. */
    Uni<V> get(K key, Supplier<V> load) {
        long now = System.nanoTime();
        Entry<V> e = entries.get(key);
        if (e != null && e.value().isDone() && !e.value().isCompletedExceptionally() && now - e.until() < 0) {
            return Uni.createFrom().item(e.value().getNow(null));
        }
        if (e == null || e.value().isDone()) {
            Entry<V> mine = new Entry<>(new CompletableFuture<>(), now + ttlNanos);
            boolean won = e == null ? entries.putIfAbsent(key, mine) == null : entries.replace(key, e, mine);
            if (won) {
                return Blocking.call(load::get).onItemOrFailure().invoke((v, failure) -> {
                    if (failure != null) {
                        entries.remove(key, mine);
                        mine.value().completeExceptionally(failure);
                    } else {
                        mine.value().complete(v);
                    }
                });
            }
            e = entries.get(key);
            if (e == null) {
                return get(key, load);
            }
        }
        // A load under way by another caller: wait for it, and go on on this caller's own context (the load ends on
        // the loader's), so that what follows stays on this request's event loop.
        CompletableFuture<V> pending = e.value();
        io.vertx.core.Context context = io.vertx.core.Vertx.currentContext();
        if (context == null) {
            return Uni.createFrom().completionStage(pending.thenApply(v -> v));
        }
        return Uni.createFrom().emitter(em -> pending.whenComplete((v, failure) -> context.runOnContext(ignored -> {
            if (failure != null) {
                em.fail(failure instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                        ? c.getCause() : failure);
            } else {
                em.complete(v);
            }
        })));
    }

    void remove(K key) {
        entries.remove(key);
    }

    void clear() {
        entries.clear();
    }
}
