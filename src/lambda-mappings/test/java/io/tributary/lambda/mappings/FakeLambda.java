package io.tributary.lambda.mappings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.SdkHttpFullResponse;
import software.amazon.awssdk.protocols.json.AwsJsonProtocol;
import software.amazon.awssdk.protocols.json.AwsJsonProtocolFactory;
import software.amazon.awssdk.protocols.json.JsonOperationMetadata;
import software.amazon.awssdk.services.lambda.model.CreateAliasRequest;
import software.amazon.awssdk.services.lambda.model.CreateEventSourceMappingRequest;

/**
 * An in-memory stand-in for the Lambda control plane: aliases and event source mappings as IngestMappings uses them.
 * A deleted mapping is seen "Deleting" for two polls before it is gone, as Lambda takes a while. Thread-safe: the
 * function under test calls it on its own threads while the test reads it.
 *
 * <p>Each CreateEventSourceMapping body is read back into the AWS SDK's own model of the request by the SDK's
 * REST-JSON unmarshaller (the SDK is a test dependency only), so the tests' typed checks also check the member names
 * and values {@link MappingRequests} writes: a misspelt member reads back as null.
 */
public final class FakeLambda implements LambdaApi {
    public static final String INGEST = "arn:aws:lambda:eu-west-1:123456789012:function:tributary-ingest";
    public static final String MSK = "arn:aws:kafka:eu-west-1:123456789012:cluster/events/0123-4567-1";
    private static final AwsJsonProtocolFactory REST_JSON = AwsJsonProtocolFactory.builder()
            .protocol(AwsJsonProtocol.REST_JSON).protocolVersion("1.1").build();

    public final List<String> aliases = new CopyOnWriteArrayList<>();
    public final List<CreateAliasRequest> aliasRequests = new CopyOnWriteArrayList<>();
    public final List<CreateEventSourceMappingRequest> mappings = new CopyOnWriteArrayList<>();
    /** uuid -> polls left before it is gone (-1: not deleting). */
    public final Map<String, Integer> live = new ConcurrentHashMap<>();
    public final List<String> deleted = new CopyOnWriteArrayList<>();
    volatile int polls;

    /** The request that created mapping {@code uuid}. */
    public CreateEventSourceMappingRequest request(String uuid) {
        return mappings.get(Integer.parseInt(uuid.substring("uuid-".length())) - 1);
    }

    /** The SDK's model of a CreateEventSourceMapping body, read by the SDK's REST-JSON unmarshaller. */
    static CreateEventSourceMappingRequest asSdkRequest(ObjectNode body) {
        try {
            return REST_JSON.<CreateEventSourceMappingRequest>createResponseHandler(
                    JsonOperationMetadata.builder().isPayloadJson(true).hasStreamingSuccessResponse(false).build(),
                    CreateEventSourceMappingRequest::builder)
                    .handle(SdkHttpFullResponse.builder().statusCode(200)
                            .putHeader("Content-Type", "application/json")
                            .content(AbortableInputStream.create(new ByteArrayInputStream(
                                    body.toString().getBytes(StandardCharsets.UTF_8))))
                            .build(), new ExecutionAttributes());
        } catch (Exception e) {
            throw new IllegalStateException("the SDK cannot read the request " + body, e);
        }
    }

    @Override
    public synchronized void createAlias(String functionArn, String name, String description) {
        aliasRequests.add(CreateAliasRequest.builder().functionName(functionArn).name(name).functionVersion("$LATEST")
                .description(description).build());
        aliases.add(name);
    }

    @Override
    public synchronized String createEventSourceMapping(ObjectNode request) {
        mappings.add(asSdkRequest(request));
        String uuid = "uuid-" + mappings.size();
        live.put(uuid, -1);
        return uuid;
    }

    @Override
    public synchronized void deleteEventSourceMapping(String uuid) {
        if (!live.containsKey(uuid)) {
            throw new NotFoundException("gone");
        }
        deleted.add(uuid);
        live.put(uuid, 2);
    }

    @Override
    public synchronized boolean eventSourceMappingExists(String uuid) {
        polls++;
        Integer left = live.get(uuid);
        if (left == null || left == 0) {
            live.remove(uuid);
            return false;
        }
        live.put(uuid, left - 1);
        return true;
    }

    @Override
    public synchronized void deleteAlias(String functionArn, String name) {
        if (!aliases.remove(name)) {
            throw new NotFoundException("no alias");
        }
    }

    @Override
    public void close() {}
}
