package io.tributary.lambda.mappings;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import software.amazon.awssdk.services.lambda.LambdaClient;
import software.amazon.awssdk.services.lambda.model.CreateAliasRequest;
import software.amazon.awssdk.services.lambda.model.CreateAliasResponse;
import software.amazon.awssdk.services.lambda.model.CreateEventSourceMappingRequest;
import software.amazon.awssdk.services.lambda.model.CreateEventSourceMappingResponse;
import software.amazon.awssdk.services.lambda.model.DeleteAliasRequest;
import software.amazon.awssdk.services.lambda.model.DeleteAliasResponse;
import software.amazon.awssdk.services.lambda.model.DeleteEventSourceMappingRequest;
import software.amazon.awssdk.services.lambda.model.DeleteEventSourceMappingResponse;
import software.amazon.awssdk.services.lambda.model.GetEventSourceMappingRequest;
import software.amazon.awssdk.services.lambda.model.GetEventSourceMappingResponse;
import software.amazon.awssdk.services.lambda.model.ResourceNotFoundException;

/**
 * An in-memory stand-in for the Lambda control plane: aliases and event source mappings as IngestMappings uses them.
 * A deleted mapping is seen "Deleting" for two polls before it is gone, as Lambda takes a while. Thread-safe: the
 * function under test calls it on its own threads while the test reads it.
 */
public final class FakeLambda implements LambdaClient {
    public static final String INGEST = "arn:aws:lambda:eu-west-1:123456789012:function:tributary-ingest";
    public static final String MSK = "arn:aws:kafka:eu-west-1:123456789012:cluster/events/0123-4567-1";

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

    @Override
    public synchronized CreateAliasResponse createAlias(CreateAliasRequest request) {
        aliasRequests.add(request);
        aliases.add(request.name());
        return CreateAliasResponse.builder().name(request.name()).build();
    }

    @Override
    public synchronized CreateEventSourceMappingResponse createEventSourceMapping(
            CreateEventSourceMappingRequest request) {
        mappings.add(request);
        String uuid = "uuid-" + mappings.size();
        live.put(uuid, -1);
        return CreateEventSourceMappingResponse.builder().uuid(uuid).state("Creating").build();
    }

    @Override
    public synchronized DeleteEventSourceMappingResponse deleteEventSourceMapping(
            DeleteEventSourceMappingRequest request) {
        if (!live.containsKey(request.uuid())) {
            throw ResourceNotFoundException.builder().message("gone").build();
        }
        deleted.add(request.uuid());
        live.put(request.uuid(), 2);
        return DeleteEventSourceMappingResponse.builder().uuid(request.uuid()).state("Deleting").build();
    }

    @Override
    public synchronized GetEventSourceMappingResponse getEventSourceMapping(GetEventSourceMappingRequest request) {
        polls++;
        Integer left = live.get(request.uuid());
        if (left == null || left == 0) {
            live.remove(request.uuid());
            throw ResourceNotFoundException.builder().message("gone").build();
        }
        live.put(request.uuid(), left - 1);
        return GetEventSourceMappingResponse.builder().uuid(request.uuid()).state("Deleting").build();
    }

    @Override
    public synchronized DeleteAliasResponse deleteAlias(DeleteAliasRequest request) {
        if (!aliases.remove(request.name())) {
            throw ResourceNotFoundException.builder().message("no alias").build();
        }
        return DeleteAliasResponse.builder().build();
    }

    @Override
    public String serviceName() {
        return "lambda";
    }

    @Override
    public void close() {}
}
