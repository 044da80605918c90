package io.tributary.lambda.ingest;

/**
 * Which stream an invocation is for. A Kafka event does not name the event source mapping that sent it, so stream-api
 * points each stream's mappings at its own alias of this function, named {@code PREFIX + streamId}; the invoked ARN's
 * qualifier then says which stream the records belong to.
 */
final class StreamAlias {

    static final String PREFIX = "stream-";

    private StreamAlias() {}

    /** The stream id from an alias ARN {@code arn:aws:lambda:region:account:function:name:stream-<id>}. */
    static String streamId(String invokedFunctionArn) {
        if (invokedFunctionArn == null) {
            throw new IllegalStateException("the invocation has no function ARN; cannot tell which stream it is for");
        }
        String[] parts = invokedFunctionArn.split(":");
        // arn, partition, lambda, region, account, function, name, qualifier
        if (parts.length != 8 || !parts[7].startsWith(PREFIX) || parts[7].length() == PREFIX.length()) {
            throw new IllegalStateException("invoked as " + invokedFunctionArn + "; ingest must be invoked through a "
                    + "stream alias '" + PREFIX + "<stream id>' (stream-api creates one per stream)");
        }
        return parts[7].substring(PREFIX.length());
    }
}
