package io.tributary.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.WarehouseUnavailableException;
import jakarta.ws.rs.core.Response;
import java.io.UncheckedIOException;
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
}
