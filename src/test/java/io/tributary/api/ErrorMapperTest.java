package io.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.WarehouseUnavailableException;
import jakarta.ws.rs.core.Response;
import io.vertx.pgclient.PgException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;
import org.junit.jupiter.api.Test;

/**
 * A warehouse the server cannot use (no bucket, refused credentials, unreachable endpoint) is the server's to fix:
 * a 503 that says which setting, never a 500 that says to read the log. The warehouse check comes before the registry
 * probe, so this needs no database.
 */
class ErrorMapperTest {

    @Test
    void aWarehouseFailureIsA503ThatNamesTheSetting() {
        String why = "the warehouse bucket 'wh' does not exist: create it, or point TRIBUTARY_WAREHOUSE at an existing "
                + "bucket";
        Response response = new ErrorMapper().unexpected(new UncheckedIOException("checking for a Delta log failed",
                new WarehouseUnavailableException(why, null))).await().indefinitely();
        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getHeaderString("Retry-After")).isEqualTo("5");
        ErrorBody body = (ErrorBody) response.getEntity();
        assertThat(body.errorCode()).isEqualTo("TEMPORARILY_UNAVAILABLE");
        assertThat(body.message()).isEqualTo(why);
    }

    /**
     * A database that refuses sessions (restarting, shut down, not accepting connections, full) is a service not
     * answering, a 503 to retry: seen from lookups on a separate online database that was restarting, answered 500.
     */
    @Test
    void aDatabaseThatRefusesSessionsIsNotAnswering() {
        assertThat(ErrorMapper.lostConnection(new IllegalStateException("looking up features failed",
                new SQLException("FATAL: terminating connection due to administrator command", "57P01")))).isNotNull();
        assertThat(ErrorMapper.lostConnection(new PgException("database \"online\" is not currently accepting "
                + "connections", "FATAL", "55000", null))).isNotNull();
        assertThat(ErrorMapper.lostConnection(new IllegalStateException("cannot read the sync state", new PSQLException(
                new ServerErrorMessage("SFATAL\0C55000\0Mdatabase \"online\" is not currently accepting connections\0")))))
                .isNotNull();
        assertThat(ErrorMapper.lostConnection(new SQLException("sorry, too many clients already", "53300")))
                .isNotNull();
        assertThat(ErrorMapper.lostConnection(new PgException("duplicate key value", "ERROR", "23505", null)))
                .as("a statement's own failure").isNull();
    }
}
