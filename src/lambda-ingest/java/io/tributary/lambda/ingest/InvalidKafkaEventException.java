package io.tributary.lambda.ingest;

/** A Kafka event that cannot be ingested; the message names the JSON field and never carries record contents. */
final class InvalidKafkaEventException extends IllegalArgumentException {
    InvalidKafkaEventException(String message) {
        super(message);
    }
}
