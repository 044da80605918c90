package io.tributary.lambda.ingest;

import io.quarkus.amazon.lambda.runtime.AmazonLambdaApi;
import io.quarkus.amazon.lambda.runtime.MockEventServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.util.Map;

/**
 * Quarkus's mock event server (its own class, unchanged) plus the one header of Lambda's Runtime API it leaves out:
 * {@code Lambda-Runtime-Invoked-Function-Arn}. Lambda sets it to the ARN the invocation came through, which for the
 * ingest function is the stream's alias (StreamAlias); a test names it by posting the event with that header, the way
 * an event source mapping invokes {@code function:tributary-ingest:stream-<id>}. Everything else (queueing, the
 * runtime API the poll loop talks to, responses and errors) is Quarkus's.
 *
 * <p>Registered as a test resource ({@link Resource}): it points the function's poll loop at this server
 * ({@link AmazonLambdaApi#QUARKUS_INTERNAL_AWS_LAMBDA_TEST_API}, the setting Quarkus's own server fills) and tells
 * tests where to post ({@link #URL}).
 */
public class InvokedFunctionEventServer extends MockEventServer {
    static final String INVOKED_ARN = AmazonLambdaApi.LAMBDA_RUNTIME_INVOKED_FUNCTION_ARN;
    /** Config key with the URL tests post events to. */
    static final String URL = "tributary.test.lambda-invoke-url";

    /** Starts the server on a free port for the function under test. */
    public static class Resource implements QuarkusTestResourceLifecycleManager {
        private final InvokedFunctionEventServer server = new InvokedFunctionEventServer();

        @Override
        public Map<String, String> start() {
            server.start(0);
            return Map.of(
                    AmazonLambdaApi.QUARKUS_INTERNAL_AWS_LAMBDA_TEST_API, "localhost:" + server.getPort() + BASE_PATH,
                    URL, "http://localhost:" + server.getPort() + POST_EVENT);
        }

        @Override
        public void stop() {
            try {
                server.close();
            } catch (IOException e) {
                // the test JVM is ending
            }
        }
    }

    @Override
    public void nextEvent(RoutingContext ctx) {
        HttpServerResponse response = ctx.response();
        // Quarkus's nextEvent picks the event, records it as pending under its request id and sets that id as a header
        // before it writes the response: add the invoked ARN the event was posted with at that last moment.
        response.headersEndHandler(v -> {
            String requestId = response.headers().get(AmazonLambdaApi.LAMBDA_RUNTIME_AWS_REQUEST_ID);
            RoutingContext event = requestId == null ? null : responsePending.get(requestId);
            String arn = event == null ? null : event.request().getHeader(INVOKED_ARN);
            if (arn != null) {
                response.putHeader(INVOKED_ARN, arn);
            }
        });
        super.nextEvent(ctx);
    }
}
