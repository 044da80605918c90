package io.tributary.registry.service;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Values kept for a short time, each loaded by one caller at a time: when an entry expires under a thousand requests
 * a second, one of them reads it again and the others wait for that read instead of each querying the registry. A
 * failed load is not kept (the next caller tries again), so a 403 or 404 is never served from the cache.
 *
 * <p>An entry is read again ahead of its expiry: the first caller to find it past half its time starts a reload in the
 * background and, like everyone after it, is answered from the entry until the reload replaces it. Under steady use
 * no request waits for a registry read (a reload on a busy worker pool once took a 1,000-requests/s lookup's p99 from
 * 1 ms to hundreds), and no value is served longer than its time after the read that produced it began.
 */
public final class ExpiringCache<K, V> {
    private record Entry<V>(CompletableFuture<V> value, long refreshAt, long until, AtomicBoolean reloading) {}

    /** Entries are per caller and name; past this many the cache starts afresh rather than grow without end. */
    static final int MAX_ENTRIES = 10_000;

    private final ConcurrentHashMap<K, Entry<V>> entries = new ConcurrentHashMap<>();
    private final long ttlNanos;
    private final int maxEntries;

    /**
     * The key of what {@code caller} may do with {@code name}: the caller's name and admin flag both decide the
     * outcome of an access check, so both are in it.
     */
    public static String perCaller(io.tributary.security.Principal caller, String name) {
        return caller.name() + "\n" + caller.admin() + "\n" + name;
    }

    public ExpiringCache(Duration ttl) {
        this(ttl, MAX_ENTRIES);
    }

    ExpiringCache(Duration ttl, int maxEntries) {
        this.ttlNanos = ttl.toNanos();
        this.maxEntries = maxEntries;
    }

    private Entry<V> fresh(long now) {
        return new Entry<>(new CompletableFuture<>(), now + ttlNanos / 2, now + ttlNanos, new AtomicBoolean());
    }

    /** The value of {@code key}; {@code load} (a blocking read, run on a worker) when it is missing or expired. */
    public Uni<V> get(K key, Supplier<V> load) {
        long now = System.nanoTime();
        Entry<V> e = entries.get(key);
        if (e != null && e.value().isDone() && !e.value().isCompletedExceptionally() && now - e.until() < 0) {
            if (now - e.refreshAt() >= 0 && e.reloading().compareAndSet(false, true)) {
                reloadBehind(key, e, load, now);
            }
            return Uni.createFrom().item(e.value().getNow(null));
        }
        if (e == null || e.value().isDone()) {
            if (e == null && entries.size() >= maxEntries) {
                // Expired entries are replaced only when asked for again: many callers over time would pile up.
                entries.clear();
            }
            Entry<V> mine = fresh(now);
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

    /**
     * Reads {@code key} again while {@code current} keeps answering. The new value replaces {@code current} only if
     * that is still the entry (a {@link #remove} or {@link #clear} meanwhile means the read may predate the change
     * that caused it); a failed read drops the entry, so the next caller reads it itself and hears the failure.
     */
    private void reloadBehind(K key, Entry<V> current, Supplier<V> load, long startedAt) {
        Entry<V> next = fresh(startedAt);
        Blocking.call(load::get).subscribe().with(v -> {
            next.value().complete(v);
            entries.replace(key, current, next);
        }, failure -> entries.remove(key, current));
    }

    public void remove(K key) {
        entries.remove(key);
    }

    /** Forgets every entry whose key matches (a reload under way for one of them is discarded too). */
    public void removeIf(java.util.function.Predicate<K> key) {
        entries.keySet().removeIf(key);
    }

    public void clear() {
        entries.clear();
    }
}
