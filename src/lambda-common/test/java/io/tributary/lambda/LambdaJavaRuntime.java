package io.tributary.lambda;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * What Lambda's {@code java17} managed runtime does with a JVM function zip, for running one outside Lambda: with the
 * zip's root and {@code lib/*} on the class path (as {@code /var/task}), it instantiates the handler class named by
 * {@code function.handler} during init (Quarkus boots there), then loops on the Runtime API at
 * {@code AWS_LAMBDA_RUNTIME_API}: takes the next event, calls the handler method with the event's bytes and a
 * {@link Context} (request id, invoked ARN, deadline), and posts the result or the error. A JVM-mode Quarkus Lambda
 * has no poll loop of its own (Quarkus starts one only in native images and in dev and test mode), so this is the
 * part of Lambda the integration tests and the bench stand in for; {@link PackagedFunction} copies this class (alone)
 * next to the unzipped function. Uses only the JDK and aws-lambda-java-core, which every function zip contains.
 *
 * <p>Usage: {@code java -cp <this>:<task>:<task>/lib/* io.tributary.lambda.LambdaJavaRuntime
 * io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler::handleRequest}
 */
public final class LambdaJavaRuntime {
    private LambdaJavaRuntime() {}

    public static void main(String[] args) throws Exception {
        String api = "http://" + System.getenv("AWS_LAMBDA_RUNTIME_API") + "/2018-06-01/runtime/";
        String handlerClass = args[0].contains("::") ? args[0].substring(0, args[0].indexOf("::")) : args[0];
        RequestStreamHandler handler;
        try {
            handler = (RequestStreamHandler) Class.forName(handlerClass).getDeclaredConstructor().newInstance();
        } catch (Throwable e) {
            post(api + "init/error", error(e));
            throw e;
        }
        while (true) {
            HttpURLConnection next = (HttpURLConnection) URI.create(api + "invocation/next").toURL().openConnection();
            String requestId = next.getHeaderField("Lambda-Runtime-Aws-Request-Id");
            String arn = next.getHeaderField("Lambda-Runtime-Invoked-Function-Arn");
            long deadline = Long.parseLong(next.getHeaderField("Lambda-Runtime-Deadline-Ms"));
            byte[] event;
            try (InputStream in = next.getInputStream()) {
                event = in.readAllBytes();
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                handler.handleRequest(new java.io.ByteArrayInputStream(event), out, context(requestId, arn, deadline));
            } catch (Throwable e) {
                post(api + "invocation/" + requestId + "/error", error(e));
                continue;
            }
            post(api + "invocation/" + requestId + "/response", out.toByteArray());
        }
    }

    /** Lambda's error object, with the causes' messages (the java runtime reports them as "cause"). */
    private static byte[] error(Throwable e) {
        StringBuilder json = new StringBuilder("{\"errorType\":").append(quote(e.getClass().getName()))
                .append(",\"errorMessage\":").append(quote(String.valueOf(e.getMessage())));
        StringBuilder causes = new StringBuilder();
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            causes.append(causes.length() == 0 ? "" : " / ").append(c.getClass().getName()).append(": ")
                    .append(c.getMessage());
        }
        if (causes.length() > 0) {
            json.append(",\"cause\":").append(quote(causes.toString()));
        }
        return json.append('}').toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String quote(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                q.append('\\').append(c);
            } else if (c < 0x20) {
                q.append(String.format("\\u%04x", (int) c));
            } else {
                q.append(c);
            }
        }
        return q.append('"').toString();
    }

    private static void post(String url, byte[] body) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setFixedLengthStreamingMode(body.length);
        try (OutputStream o = c.getOutputStream()) {
            o.write(body);
        }
        try (InputStream in = c.getInputStream()) {
            in.readAllBytes();
        }
    }

    private static Context context(String requestId, String arn, long deadlineMs) {
        String function = System.getenv().getOrDefault("AWS_LAMBDA_FUNCTION_NAME", "function");
        int memory = Integer.parseInt(System.getenv().getOrDefault("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1024"));
        return new Context() {
            @Override
            public String getAwsRequestId() {
                return requestId;
            }

            @Override
            public String getLogGroupName() {
                return "/aws/lambda/" + function;
            }

            @Override
            public String getLogStreamName() {
                return "local";
            }

            @Override
            public String getFunctionName() {
                return function;
            }

            @Override
            public String getFunctionVersion() {
                return "$LATEST";
            }

            @Override
            public String getInvokedFunctionArn() {
                return arn;
            }

            @Override
            public CognitoIdentity getIdentity() {
                return null;
            }

            @Override
            public ClientContext getClientContext() {
                return null;
            }

            @Override
            public int getRemainingTimeInMillis() {
                return (int) Math.max(0, deadlineMs - System.currentTimeMillis());
            }

            @Override
            public int getMemoryLimitInMB() {
                return memory;
            }

            @Override
            public LambdaLogger getLogger() {
                return new LambdaLogger() {
                    @Override
                    public void log(String message) {
                        System.out.print(message);
                    }

                    @Override
                    public void log(byte[] message) {
                        System.out.write(message, 0, message.length);
                    }
                };
            }
        };
    }
}
