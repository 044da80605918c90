package io.tributary.registry.online;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.mutiny.Uni;
import io.tributary.config.OnlineConfig;
import io.tributary.online.OnlineStore;
import io.tributary.online.SyncException;
import io.tributary.online.SyncState;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Tuple;
import io.vertx.sqlclient.data.Numeric;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Key lookups on synced tables over the reactive PostgreSQL client, for the API: the statement goes out from the
 * event loop that received the request and the rows are written as JSON straight from the wire rows, so a lookup
 * costs one round trip to PostgreSQL and no thread hand-over (the JDBC {@link io.tributary.online.OnlineLookup} costs
 * two: to a worker and back, each a wait for a CPU on a busy machine).
 *
 * <p>Pools of their own ({@code tributary.online.max-connections} in all), to the online database: lookups never wait
 * behind registry work, and their statements stay prepared on the server (one round trip each), which the registry's
 * shared pool does not do. One pool per event loop, whose connections live on that loop: a lookup's HTTP request, its
 * statement and its answer are then all handled by one thread. With one pool shared by the loops, a request on one
 * loop took a connection of another: the statement was handed over to that loop and the rows back, two more
 * thread wake-ups per lookup, and on a machine whose CPUs are all busy each wake-up is a wait in the run queue
 * (bench/online on a loaded machine: the loops waited 8 ms in it for every 1 ms they ran).
 *
 * <p>A prepared {@code SELECT *} is refused by PostgreSQL once its table's columns change; the statement's text names
 * the columns' signature, so a table whose columns changed gets a new statement, and a lookup that meets the refusal
 * in the moment before it knows retries once with the new one.
 */
@ApplicationScoped
public class OnlineReads {
    private static final JsonFactory JSON = new JsonFactory();
    /** PostgreSQL's answer to a prepared statement whose result columns changed under it. */
    public static final String RESULT_TYPE_CHANGED = "0A000";

    private final OnlineStore names;
    private final io.vertx.core.Vertx vertx;
    private final PgConnectOptions options;
    private final int perLoop;
    /**
     * One pool per event loop, its connections on that loop (created on first use from it); {@link #NO_LOOP}'s
     * serves callers on no event loop. See the class comment.
     */
    private final java.util.concurrent.ConcurrentHashMap<Object, io.vertx.sqlclient.Pool> pools =
            new java.util.concurrent.ConcurrentHashMap<>();
    private static final Object NO_LOOP = new Object();

    @Inject
    OnlineReads(OnlineConfig config, OnlineDatabase online, Vertx vertx,
            @ConfigProperty(name = "quarkus.datasource.reactive.url") Optional<String> registryUrl,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> registryUser,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> registryPassword,
            org.eclipse.microprofile.config.Config settings) {
        this.names = online.store();
        PgConnectOptions options;
        if (config.jdbcUrl().isPresent()) {
            // Its TLS as pgjdbc, which the syncs use, reads it: else lookups went without TLS, or failed, where syncs
            // worked.
            options = io.tributary.config.JdbcUrlTls.apply(options("tributary.online.jdbc-url",
                    config.jdbcUrl().get()), config.jdbcUrl().get(), "TRIBUTARY_ONLINE_JDBC_URL");
            config.username().ifPresent(options::setUser);
            config.password().ifPresent(options::setPassword);
        } else {
            String url = registryUrl.orElseThrow(() -> new IllegalStateException("synced table lookups need "
                    + "quarkus.datasource.reactive.url (QUARKUS_DATASOURCE_REACTIVE_URL) or tributary.online.jdbc-url"))
                    .split(",")[0].trim();
            // The registry's TLS settings too, as its own pool has them: a database taking TLS connections only
            // (Terraform's RDS Proxy) refused every lookup without them.
            options = io.tributary.config.RegistryConnectOptions.withTls(
                    options("quarkus.datasource.reactive.url", url), settings);
            registryUser.ifPresent(options::setUser);
            registryPassword.ifPresent(options::setPassword);
        }
        options.setCachePreparedStatements(true);
        this.options = options;
        this.vertx = vertx.getDelegate();
        int loops = 0;
        for (io.netty.util.concurrent.EventExecutor ignored
                : ((io.vertx.core.impl.VertxInternal) this.vertx).getEventLoopGroup()) {
            loops++;
        }
        // tributary.online.max-connections shared among the loops (rounded up: every loop gets one at least).
        this.perLoop = Math.max(1, (config.maxConnections() + Math.max(1, loops) - 1) / Math.max(1, loops));
    }

    /**
     * The pool of the caller's event loop. Connections open on first use (a process that serves no lookups, the
     * ingest function, opens none), from that loop, so each lives on the loop whose requests use it.
     */
    private io.vertx.sqlclient.Pool pool() {
        io.vertx.core.impl.ContextInternal context = (io.vertx.core.impl.ContextInternal) io.vertx.core.Vertx
                .currentContext();
        Object loop = context == null || !context.isEventLoopContext() ? NO_LOOP : context.nettyEventLoop();
        io.vertx.sqlclient.Pool pool = pools.get(loop);
        if (pool != null) {
            return pool;
        }
        return pools.computeIfAbsent(loop, l -> PgBuilder.pool().with(new PoolOptions().setMaxSize(perLoop)
                        // 0: each connection on the loop that asks for it, which for this pool is always its own
                        .setEventLoopSize(l == NO_LOOP ? 1 : 0))
                .connectingTo(options).using(vertx).build());
    }

    private static PgConnectOptions options(String setting, String url) {
        String uri = url.startsWith("jdbc:") ? url.substring(5) : url;
        if (uri.startsWith("vertx-reactive:")) {
            uri = uri.substring("vertx-reactive:".length());
        }
        try {
            return PgConnectOptions.fromUri(uri);
        } catch (RuntimeException e) {
            // Not the parser's message: it quotes the whole URL, password included.
            throw new IllegalStateException(setting + " '" + OnlineDatabase.shown(url) + "' is not a PostgreSQL URL the "
                    + "reactive client reads (postgresql://host:port/database; one host)");
        }
    }

    /**
     * The statement of a lookup of {@code keys} keys (a plain key SELECT for one, an unnest join for more) on a table
     * with {@code columns}; its text changes with them (see the class comment).
     */
    public String statement(String table, List<SyncState.StoredColumn> columns,
            List<SyncState.StoredColumn> keyColumns, int keys) {
        StringBuilder sql = new StringBuilder("/* ").append(Integer.toHexString(columns.hashCode())).append(" */ ");
        if (keys == 1) {
            sql.append("SELECT * FROM ").append(names.qualified(table)).append(" WHERE ");
            for (int i = 0; i < keyColumns.size(); i++) {
                SyncState.StoredColumn k = keyColumns.get(i);
                // $n::text, so PostgreSQL takes the parameter as text and the cast does the parsing.
                sql.append(i == 0 ? "" : " AND ").append(OnlineStore.quote(k.name())).append(" = CAST($")
                        .append(i + 1).append("::text AS ").append(k.pgType()).append(")");
            }
            return sql.toString();
        }
        sql.append("SELECT k.i, t.* FROM unnest(");
        for (int i = 0; i < keyColumns.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("$").append(i + 1).append("::text[]");
        }
        sql.append(") WITH ORDINALITY AS k(");
        for (int i = 0; i < keyColumns.size(); i++) {
            sql.append("k").append(i).append(", ");
        }
        sql.append("i) JOIN ").append(names.qualified(table)).append(" AS t ON ");
        sql.append(java.util.stream.IntStream.range(0, keyColumns.size()).mapToObj(i -> "t."
                + OnlineStore.quote(keyColumns.get(i).name()) + " = CAST(k.k" + i + " AS " + keyColumns.get(i)
                .pgType() + ")").collect(Collectors.joining(" AND ")));
        return sql.toString();
    }

    /**
     * {@code {"rows": [...]}} as JSON, in key order, null for a key without a row. {@code statement}: from
     * {@link #statement} for {@code keys.size()} keys; {@code keys}: per key, its columns' values as text (a null finds
     * nothing). Fails with {@link SyncException} when the table does not exist, and with a {@link PgException} of
     * {@link #RESULT_TYPE_CHANGED} when its columns changed since the statement was made.
     */
    public Uni<byte[]> lookup(String statement, int keyColumns, List<String[]> keys) {
        Tuple params = Tuple.tuple();
        if (keys.size() == 1) {
            for (String v : keys.get(0)) {
                params.addValue(v);
            }
        } else {
            for (int col = 0; col < keyColumns; col++) {
                String[] values = new String[keys.size()];
                for (int k = 0; k < keys.size(); k++) {
                    values[k] = keys.get(k)[col];
                }
                params.addArrayOfString(values);
            }
        }
        int n = keys.size();
        // One Uni around the callback: every operator more is a context-propagation wrapper on the request's path.
        return Uni.createFrom().emitter(em -> pool().preparedQuery(statement).execute(params, ar -> {
            if (ar.succeeded()) {
                byte[] body;
                try {
                    body = json(ar.result(), n);
                } catch (RuntimeException e) {
                    em.fail(e);
                    return;
                }
                em.complete(body);
            } else if (ar.cause() instanceof PgException pg && "42P01".equals(pg.getSqlState())) {
                em.fail(new SyncException("the synced table has no PostgreSQL table: it has not "
                        + "synced yet, or its table was dropped outside Tributary and the next sync rebuilds it"));
            } else {
                em.fail(ar.cause());
            }
        }));
    }

    /**
     * Another reader's one statement on the same pools (feature view lookups): its rows handed to {@code answer} on
     * the caller's event loop, as a synced table's are written. Fails with {@link SyncException} when a table it
     * reads does not exist.
     */
    public <T> Uni<T> query(String statement, Tuple params,
            java.util.function.Function<io.vertx.sqlclient.RowSet<io.vertx.sqlclient.Row>, T> answer) {
        return Uni.createFrom().emitter(em -> pool().preparedQuery(statement).execute(params, ar -> {
            if (ar.succeeded()) {
                T value;
                try {
                    value = answer.apply(ar.result());
                } catch (RuntimeException e) {
                    em.fail(e);
                    return;
                }
                em.complete(value);
            } else if (ar.cause() instanceof PgException pg && "42P01".equals(pg.getSqlState())) {
                em.fail(new SyncException("its online table does not exist: " + pg.getErrorMessage()));
            } else {
                em.fail(ar.cause());
            }
        }));
    }

    private static byte[] json(io.vertx.sqlclient.RowSet<io.vertx.sqlclient.Row> rows, int keys) {
        io.vertx.sqlclient.Row[] byKey = new io.vertx.sqlclient.Row[keys];
        int first = 0;
        if (keys == 1) {
            if (rows.size() > 0) {
                byKey[0] = rows.iterator().next();
            }
        } else {
            first = 1; // the ordinality column, not part of the row
            for (io.vertx.sqlclient.Row row : rows) {
                byKey[(int) (row.getLong(0) - 1)] = row;
            }
        }
        List<String> columns = rows.columnsNames();
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + keys * 64);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeArrayFieldStart("rows");
            for (io.vertx.sqlclient.Row row : byKey) {
                if (row == null) {
                    g.writeNull();
                    continue;
                }
                g.writeStartObject();
                for (int i = first; i < columns.size(); i++) {
                    g.writeFieldName(columns.get(i));
                    value(g, row.getValue(i));
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * PostgreSQL's first and last timestamp years (4714 BC is year -4713): what a row holds beyond them is
     * {@code -infinity} or {@code infinity} (a synced value beyond PostgreSQL's range, SPEC 9.2), which the client
     * decodes as the greatest {@code OffsetDateTime} or as the epoch less 2^63 microseconds (year -290278).
     */
    private static final int PG_FIRST_YEAR = -4713;
    private static final int PG_LAST_YEAR = 294276;

    /**
     * SPEC 9.1: timestamps as RFC 3339 UTC (PostgreSQL's infinities as "infinity", "-infinity"), jsonb as JSON,
     * binary as base64.
     */
    static void value(JsonGenerator g, Object v) throws IOException {
        if (v == null || v == Tuple.JSON_NULL) {
            g.writeNull();
        } else if (v instanceof String s) {
            g.writeString(s);
        } else if (v instanceof Integer i) {
            g.writeNumber(i);
        } else if (v instanceof Long l) {
            g.writeNumber(l);
        } else if (v instanceof Short s) {
            g.writeNumber(s);
        } else if (v instanceof Double d) {
            g.writeNumber(d);
        } else if (v instanceof Float f) {
            g.writeNumber(f);
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (v instanceof Numeric n) {
            java.math.BigDecimal d = n.bigDecimalValue();
            if (d == null) {
                g.writeNull(); // NaN
            } else {
                g.writeNumber(d);
            }
        } else if (v instanceof OffsetDateTime t) {
            g.writeString(t.getYear() > PG_LAST_YEAR ? "infinity" : t.getYear() < PG_FIRST_YEAR ? "-infinity"
                    : t.toInstant().toString());
        } else if (v instanceof LocalDateTime t) {
            g.writeString(t.getYear() > PG_LAST_YEAR ? "infinity" : t.getYear() < PG_FIRST_YEAR ? "-infinity"
                    : t.toString());
        } else if (v instanceof LocalDate d) {
            g.writeString(d.equals(LocalDate.MAX) ? "infinity" : d.equals(LocalDate.MIN) ? "-infinity"
                    : d.toString());
        } else if (v instanceof Buffer b) {
            g.writeBinary(b.getBytes());
        } else if (v instanceof io.vertx.mutiny.core.buffer.Buffer b) {
            g.writeBinary(b.getBytes());
        } else if (v instanceof JsonObject o) {
            g.writeRawValue(o.encode());
        } else if (v instanceof JsonArray a) {
            g.writeRawValue(a.encode());
        } else if (v instanceof Number num) {
            g.writeNumber(num.toString());
        } else {
            g.writeString(v.toString());
        }
    }

    void onShutdown(@Observes ShutdownEvent event) {
        pools.values().forEach(io.vertx.sqlclient.Pool::close);
    }
}
