package io.tributary.api;

import io.quarkus.runtime.configuration.MemorySize;
import io.tributary.registry.request.ErrorCode;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Refuses a request body over {@code quarkus.http.limits.max-body-size} before it is read, with the SPEC 2 error body
 * naming the limit and the setting (Vert.x alone would answer a bare 413). A body sent without a length is cut by
 * Vert.x at the same limit.
 */
@ApplicationScoped
public class BodyLimit {

    // Quarkus always supplies this setting (its own default, or application.properties): no default repeated here.
    @ConfigProperty(name = "quarkus.http.limits.max-body-size")
    MemorySize maxBodySize;

    void install(@Observes Router router) {
        long max = maxBodySize.asLongValue();
        String body = new JsonObject().put("error_code", ErrorCode.REQUEST_TOO_LARGE.name())
                .put("message", "the request body is larger than the server accepts (" + max + " bytes, set by "
                        + "QUARKUS_HTTP_LIMITS_MAX_BODY_SIZE); send a smaller request, e.g. a schema with fewer "
                        + "fields").encode();
        router.route().order(Integer.MIN_VALUE).handler(ctx -> {
            String length = ctx.request().getHeader("Content-Length");
            if (length != null && tooLarge(length.trim(), max)) {
                ctx.response().setStatusCode(ErrorCode.REQUEST_TOO_LARGE.status())
                        .putHeader("Content-Type", "application/json").putHeader("Connection", "close").end(body);
                return;
            }
            ctx.next();
        });
    }

    private static boolean tooLarge(String length, long max) {
        try {
            return Long.parseLong(length) > max;
        } catch (NumberFormatException e) {
            return false; // Vert.x answers a malformed length itself
        }
    }
}
