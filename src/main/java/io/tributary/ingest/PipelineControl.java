package io.tributary.ingest;

/**
 * What the registry tells the runtime when streams come and go. The all-in-one server starts and stops consumers;
 * on AWS the stream-api function manages event source mappings instead.
 */
public interface PipelineControl {

    /**
     * The stream was created (its table exists); start ingesting it. Called on a worker thread; it must not wait for
     * the pipeline to ingest (on AWS it may ask Kafka which topics a pattern matches, bounded by the admin timeout).
     */
    void start(PipelineSpec spec);

    /** Stop the stream's pipeline and return only when no write of it can land any more. */
    void stop(String streamId);
}
