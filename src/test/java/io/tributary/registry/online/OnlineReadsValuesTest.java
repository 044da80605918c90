package io.tributary.registry.online;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A lookup's values as the reactive client decodes them from the machine's PostgreSQL: a synced timestamp or date
 * beyond PostgreSQL's range is stored as {@code -infinity} or {@code infinity} (SPEC 9.2), which the client hands over
 * as the greatest {@code OffsetDateTime} or as the epoch less 2^63 microseconds; the answer says "infinity" and
 * "-infinity", not "+1000000000-12-31T…" or "-290278-12-22T…". PostgreSQL's first instant itself (4714-11-24 BC) is
 * the client's own stand-in for -infinity, so it is answered as "-infinity" too.
 */
class OnlineReadsValuesTest {

    @Test
    void infinitiesAreAnsweredAsTheWordsAndOrdinaryTimesAsRfc3339() throws Exception {
        Vertx vertx = Vertx.vertx();
        Pool pool = PgBuilder.pool().connectingTo(new PgConnectOptions().setHost("127.0.0.1").setPort(5432)
                .setDatabase("postgres").setUser("postgres")).using(vertx).build();
        try {
            // An extended-protocol query, as the lookups' (binary results).
            Row row = pool.preparedQuery("SELECT '-infinity'::timestamptz, 'infinity'::timestamptz, "
                    + "'-infinity'::timestamp, 'infinity'::timestamp, '-infinity'::date, 'infinity'::date, "
                    + "'4714-11-24 00:00:00+00 BC'::timestamptz, '2026-12-07 10:00:00.5+00'::timestamptz, "
                    + "'9999-12-31'::date, $1::int")
                    .execute(Tuple.of(1)).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS)
                    .iterator().next();
            StringWriter out = new StringWriter();
            try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
                g.writeStartArray();
                for (int i = 0; i < 9; i++) {
                    OnlineReads.value(g, row.getValue(i));
                }
                g.writeEndArray();
            }
            assertThat(out.toString()).isEqualTo("[\"-infinity\",\"infinity\",\"-infinity\",\"infinity\","
                    + "\"-infinity\",\"infinity\",\"-infinity\",\"2026-12-07T10:00:00.500Z\","
                    + "\"9999-12-31\"]");
        } finally {
            pool.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }
}
