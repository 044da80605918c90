package io.tributary.lambda.mappings;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The five AWS Lambda control-plane operations {@link IngestMappings} makes: a stream's alias of the ingest function
 * and its Kafka event source mappings. Requests are the operations' JSON bodies as Lambda's REST-JSON API names them
 * ({@link MappingRequests}). Implemented by {@link SignedLambdaApi} (SigV4-signed HTTPS calls through the AWS SDK
 * core the functions carry anyway) instead of the SDK's {@code lambda} client, whose model of the whole Lambda API is
 * a 3.4 MB jar in each of the stream-api and backfill zips; the tests' fakes implement it too.
 */
public interface LambdaApi extends AutoCloseable {

    /** CreateAlias of {@code $LATEST}; {@link ConflictException} when the alias exists. */
    void createAlias(String functionArn, String name, String description);

    /** DeleteAlias; {@link NotFoundException} when there is none. */
    void deleteAlias(String functionArn, String name);

    /** CreateEventSourceMapping; returns the new mapping's UUID. */
    String createEventSourceMapping(ObjectNode request);

    /** DeleteEventSourceMapping (Lambda then takes a while to remove it); {@link NotFoundException} when gone. */
    void deleteEventSourceMapping(String uuid);

    /** GetEventSourceMapping: false once Lambda has removed it. */
    boolean eventSourceMappingExists(String uuid);

    @Override
    void close();

    /** Lambda's ResourceNotFoundException. */
    final class NotFoundException extends RuntimeException {
        public NotFoundException(String message) {
            super(message);
        }
    }

    /** Lambda's ResourceConflictException. */
    final class ConflictException extends RuntimeException {
        public ConflictException(String message) {
            super(message);
        }
    }
}
