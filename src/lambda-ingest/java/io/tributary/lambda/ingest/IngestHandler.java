package io.tributary.lambda.ingest;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The ingest function: a Kafka event source mapping delivers a batch, which becomes one micro-batch of the stream the
 * invoking alias names. Returning normally lets the mapping move on; throwing makes it redeliver the same batch,
 * which is safe because positions are committed in the Delta log together with the data (SPEC 4, exactly once).
 *
 * <p>A stream handler, so the event is parsed from its bytes without reflective binding (native image).
 */
public class IngestHandler implements RequestStreamHandler {

    private static final JsonFactory JSON = new JsonFactory();

    @Inject
    StreamIngestion ingestion;

    @Override
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        String streamId = StreamAlias.streamId(context.getInvokedFunctionArn());
        StreamIngestion.Outcome outcome = ingestion.ingest(streamId, KafkaEvent.parse(input.readAllBytes()));
        try (JsonGenerator out = JSON.createGenerator(output)) {
            out.writeStartObject();
            out.writeStringField("stream_id", outcome.streamId());
            out.writeNumberField("records", outcome.records());
            out.writeNumberField("rows_added", outcome.rowsAdded());
            if (outcome.tableVersion().isPresent()) {
                out.writeNumberField("table_version", outcome.tableVersion().get());
            } else {
                out.writeNullField("table_version");
            }
            out.writeEndObject();
        }
    }
}
