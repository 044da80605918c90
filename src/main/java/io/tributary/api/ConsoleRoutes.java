package io.tributary.api;

import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * The web console's files ({@code META-INF/resources/console/}, src/console) are served by Quarkus's static handler,
 * outside the REST filters: they hold no data, and every API call the console makes carries the user's token. This
 * sends {@code /console} to {@code /console/} (relative, so a path prefix in front survives) and gives the console's
 * responses a content security policy that allows only its own files and the API on the same origin.
 */
@ApplicationScoped
public class ConsoleRoutes {
    static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
            + "img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

    void install(@Observes Router router) {
        // Vert.x matches "/console" to "/console/" as well; only the bare path is redirected.
        router.get("/console").order(Integer.MIN_VALUE + 1).handler(ctx -> {
            if (!ctx.request().path().equals("/console")) {
                ctx.next();
                return;
            }
            ctx.response().setStatusCode(302).putHeader("Location", "console/").end();
        });
        router.get("/console/*").order(Integer.MIN_VALUE + 1).handler(ctx -> {
            // Set as the headers go out, after the static handler's own: it marks files immutable for a day, and a
            // browser would then keep an old console.js across a server upgrade.
            ctx.addHeadersEndHandler(v -> ctx.response().headers()
                    .set("Content-Security-Policy", POLICY)
                    .set("X-Content-Type-Options", "nosniff")
                    .set("Cache-Control", "no-cache"));
            ctx.next();
        });
    }
}
