package io.tributary.server.push;

import io.quarkus.websockets.next.CloseReason;
import io.quarkus.websockets.next.OnBinaryMessage;
import io.quarkus.websockets.next.OnClose;
import io.quarkus.websockets.next.OnOpen;
import io.quarkus.websockets.next.OnTextMessage;
import io.quarkus.websockets.next.UserData.TypedKey;
import io.quarkus.websockets.next.WebSocket;
import io.quarkus.websockets.next.WebSocketConnection;
import io.smallrye.mutiny.Uni;
import io.tributary.api.ErrorMapper;
import io.tributary.config.DirectIngestConfig;
import io.tributary.registry.request.ApiException;
import io.tributary.registry.request.ErrorCode;
import io.tributary.registry.service.DirectIngest;
import io.tributary.security.PermissionDeniedException;
import io.tributary.security.Principal;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The streaming push connection (SPEC "Direct ingest", "Streaming connection"): one WebSocket carries a producer's
 * batches, each frame one push body (text frames JSON, binary frames in the {@code content_type} chosen at connect),
 * and answers each with one acknowledgement, in the order the frames came. Every batch goes the HTTP push's way
 * ({@link DirectIngest#submit}: the same checks, the same group commit, the same sequences), queued in frame order so
 * a producer may pipeline consecutive sequences. Server only: API Gateway HTTP APIs, which front stream-api, carry
 * no WebSocket.
 *
 * <p>Flow control: at most {@code tributary.direct.max-unacknowledged-batches} batches and
 * {@code max-unacknowledged-bytes} bytes wait for their acknowledgement per connection; a batch beyond either is
 * refused (TEMPORARILY_UNAVAILABLE, nothing written) rather than read into memory unboundedly.
 *
 * <p>A refusal that no later batch can escape (the stream was deleted, MODIFY was revoked) is acknowledged and then
 * closes the connection with code 4000 + its HTTP status (4404, 4403) and the error as reason.
 */
@WebSocket(path = "/api/2.0/feature-engineering/streams/{name}/records/stream", endpointId = PushStream.ENDPOINT)
public class PushStream {
    private static final Logger LOG = Logger.getLogger(PushStream.class);
    static final String ENDPOINT = "tributary-push-stream";
    static final TypedKey<Principal> PRINCIPAL = new TypedKey<>("tributary.principal");
    static final TypedKey<Window> WINDOW = new TypedKey<>("tributary.push-window");
    static final Set<String> BINARY_TYPES = Set.of("application/json", "application/x-protobuf",
            "application/protobuf", "avro/binary", "application/avro");

    @Inject
    DirectIngest direct;
    @Inject
    DirectIngestConfig config;

    /** One acknowledgement to send, in frame order; {@code ack} is null until its batch is answered. */
    static final class Slot {
        final long frame;
        final long bytes;
        final boolean counted;
        JsonObject ack;
        ErrorCode closing;

        Slot(long frame, long bytes, boolean counted) {
            this.frame = frame;
            this.bytes = bytes;
            this.counted = counted;
        }
    }

    /** A connection's state: what it pushes to, its unacknowledged batches, why it is closing. */
    static final class Window {
        final String stream;
        final String streamId;
        final String binaryType;
        final ArrayDeque<Slot> slots = new ArrayDeque<>();
        long frames;
        int batches;
        long bytes;
        ApiException deleted;
        boolean closed;

        Window(String stream, String streamId, String binaryType) {
            this.stream = stream;
            this.streamId = streamId;
            this.binaryType = binaryType;
        }
    }

    @OnOpen
    Uni<Void> open(WebSocketConnection connection) {
        Principal caller = connection.userData().get(PRINCIPAL);
        String stream = connection.pathParam("name");
        String type = query(connection.handshakeRequest().query(), "content_type");
        String binaryType = type == null ? "application/json" : type.trim().toLowerCase(java.util.Locale.ROOT);
        if (!BINARY_TYPES.contains(binaryType)) {
            return refuse(connection, ApiException.invalid("content_type", "'" + type + "' is not a push body "
                    + "type: connect with content_type one of application/json, application/x-protobuf, avro/binary"));
        }
        return direct.check(caller, stream).map(id -> {
            connection.userData().put(WINDOW, new Window(stream, id, binaryType));
            return (Void) null;
        }).onFailure().recoverWithUni(e -> refuse(connection, e));
    }

    @OnTextMessage
    Uni<Void> text(String message, WebSocketConnection connection) {
        return batch(connection, "application/json", message.getBytes(StandardCharsets.UTF_8));
    }

    @OnBinaryMessage
    Uni<Void> binary(Buffer message, WebSocketConnection connection) {
        Window window = connection.userData().get(WINDOW);
        return batch(connection, window == null ? null : window.binaryType, message.getBytes());
    }

    @OnClose
    void closed(WebSocketConnection connection) {
        Window window = connection.userData().get(WINDOW);
        if (window != null) {
            synchronized (window) {
                window.closed = true;
            }
        }
    }

    /**
     * Queues one batch; the returned Uni completes once it is queued for its group commit (not committed), so the
     * next frame of this connection is read only then, and a producer's pipelined sequences reach the committer in
     * order.
     */
    private Uni<Void> batch(WebSocketConnection connection, String contentType, byte[] body) {
        Window window = connection.userData().get(WINDOW);
        if (window == null) {
            return Uni.createFrom().voidItem(); // refused at open, closing
        }
        Slot slot;
        ApiException refused = null;
        synchronized (window) {
            long frame = ++window.frames;
            if (window.deleted != null) {
                refused = window.deleted;
                slot = new Slot(frame, body.length, false);
            } else if (window.batches >= config.maxUnacknowledgedBatches()
                    || window.bytes > 0 && window.bytes + body.length > config.maxUnacknowledgedBytes()) {
                refused = new ApiException(ErrorCode.TEMPORARILY_UNAVAILABLE, window.batches + " batches ("
                        + window.bytes + " bytes) sent on this connection are not acknowledged yet, the most it "
                        + "takes is " + config.maxUnacknowledgedBatches() + " batches or "
                        + config.maxUnacknowledgedBytes() + " bytes; nothing of this batch was written: wait for "
                        + "acknowledgements, then send it again");
                slot = new Slot(frame, body.length, false);
            } else {
                slot = new Slot(frame, body.length, true);
                window.batches++;
                window.bytes += body.length;
            }
            window.slots.add(slot);
        }
        if (refused != null) {
            answer(connection, window, slot, error(slot.frame, null, refused));
            return Uni.createFrom().voidItem();
        }
        return direct.submit(connection.userData().get(PRINCIPAL), window.stream, contentType, body)
                .map(queued -> {
                    queued.answer().subscribe().with(
                            ok -> answer(connection, window, slot, ack(slot.frame, queued, ok)),
                            e -> answer(connection, window, slot, error(slot.frame, queued, e)));
                    return (Void) null;
                })
                .onFailure().recoverWithItem(e -> {
                    answer(connection, window, slot, error(slot.frame, null, e));
                    return null;
                });
    }

    /** Records a batch's answer and sends every answer now due, in frame order. */
    private static void answer(WebSocketConnection connection, Window window, Slot slot, Answer answer) {
        java.util.List<JsonObject> due = new java.util.ArrayList<>();
        ErrorCode closeWith = null;
        String closeMessage = null;
        synchronized (window) {
            slot.ack = answer.json();
            slot.closing = answer.closes();
            while (!window.slots.isEmpty() && window.slots.peekFirst().ack != null) {
                Slot done = window.slots.pollFirst();
                if (done.counted) {
                    window.batches--;
                    window.bytes -= done.bytes;
                }
                due.add(done.ack);
                if (done.closing != null && closeWith == null) {
                    closeWith = done.closing;
                    closeMessage = done.ack.getString("message");
                }
            }
            if (closeWith == null && window.deleted != null && window.slots.isEmpty()) {
                closeWith = window.deleted.code();
                closeMessage = window.deleted.getMessage();
            }
            if (window.closed) {
                return;
            }
            if (closeWith != null) {
                window.closed = true;
            }
        }
        for (JsonObject ack : due) {
            connection.sendText(ack.encode()).subscribe().with(v -> {}, e -> LOG.debugf(e, "acknowledgement lost"));
        }
        if (closeWith != null) {
            close(connection, closeWith, closeMessage);
        }
    }

    /**
     * The stream was deleted on this server: batches already queued are answered (the delete's fence decides which
     * landed), later ones refused, and then the connection is closed with 4404.
     */
    static void deleted(WebSocketConnection connection) {
        Window window = connection.userData().get(WINDOW);
        if (window == null) {
            return;
        }
        boolean now;
        synchronized (window) {
            window.deleted = ApiException.notFound("stream '" + window.stream + "' was deleted: batches sent after "
                    + "this were not written");
            now = window.slots.isEmpty() && !window.closed;
            window.closed |= now;
        }
        if (now) {
            close(connection, window.deleted.code(), window.deleted.getMessage());
        }
    }

    static String streamId(WebSocketConnection connection) {
        Window window = connection.userData().get(WINDOW);
        return window == null ? null : window.streamId;
    }

    private static Uni<Void> refuse(WebSocketConnection connection, Throwable e) {
        Answer answer = error(0, null, e);
        ErrorCode code = ErrorCode.valueOf(answer.json().getString("error_code"));
        return connection.sendText(answer.json().encode()).onFailure().recoverWithNull()
                .chain(() -> closeUni(connection, code, answer.json().getString("message")));
    }

    private static void close(WebSocketConnection connection, ErrorCode code, String message) {
        closeUni(connection, code, message).subscribe().with(v -> {}, e -> LOG.debugf(e, "close failed"));
    }

    /** Close code 4000 + the error's HTTP status; the reason (at most 123 bytes) starts with the error code. */
    private static Uni<Void> closeUni(WebSocketConnection connection, ErrorCode code, String message) {
        String reason = code.name() + ": " + message;
        byte[] bytes = reason.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 123) {
            reason = new String(bytes, 0, 120, StandardCharsets.UTF_8).replaceAll("\uFFFD$", "") + "...";
        }
        return connection.close(new CloseReason(4000 + code.status(), reason));
    }

    record Answer(JsonObject json, ErrorCode closes) {}

    private static Answer ack(long frame, DirectIngest.Queued queued, Map<String, Object> committed) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("frame", frame);
        out.put("producer_id", queued.producerId());
        out.put("sequence", queued.sequence());
        out.put("committed_sequence", committed.get("committed_sequence"));
        out.put("table_version", committed.get("table_version"));
        return new Answer(new JsonObject(out), null);
    }

    /** The error of one batch, as the HTTP push would answer it; a stream-level refusal also closes the connection. */
    private static Answer error(long frame, DirectIngest.Queued queued, Throwable failure) {
        Throwable e = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        ErrorCode code;
        String message;
        if (e instanceof ApiException api) {
            code = api.code();
            message = api.getMessage();
        } else if (e instanceof PermissionDeniedException denied) {
            code = ErrorCode.PERMISSION_DENIED;
            message = denied.getMessage();
        } else if (ErrorMapper.warehouse(e) != null) {
            code = ErrorCode.TEMPORARILY_UNAVAILABLE;
            message = ErrorMapper.warehouse(e).getMessage();
        } else if (ErrorMapper.lostConnection(e) != null) {
            code = ErrorCode.TEMPORARILY_UNAVAILABLE;
            message = "a service this batch needs is not answering (" + ErrorMapper.lostConnection(e).getMessage()
                    + "); retry the same batch in a few seconds";
        } else {
            LOG.errorf(e, "push over a streaming connection failed unexpectedly");
            code = ErrorCode.INTERNAL_ERROR;
            message = "the server failed to handle the batch; the server log has the details";
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("frame", frame);
        if (queued != null) {
            out.put("producer_id", queued.producerId());
            out.put("sequence", queued.sequence());
        }
        out.put("error_code", code.name());
        out.put("message", message);
        boolean closes = code == ErrorCode.RESOURCE_DOES_NOT_EXIST || code == ErrorCode.PERMISSION_DENIED
                || code == ErrorCode.UNAUTHENTICATED;
        return new Answer(new JsonObject(out), closes ? code : null);
    }

    private static String query(String query, String name) {
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            if (key.equals(name)) {
                return eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }
}
