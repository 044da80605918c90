package io.tributary.logs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.logging.json.runtime.JsonFormatter;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.CommitResult;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.StreamIngester;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JSON log line of an ingestion, formatted by the formatter quarkus-logging-json installs (TRIBUTARY_LOG_JSON):
 * it names the stream, the table version it committed and the batch size as fields, not only in its text.
 */
class IngestionLogLinesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path warehouse;
    private final List<String> lines = new ArrayList<>();
    private final JsonFormatter formatter = new JsonFormatter();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (lines) {
                lines.add(formatter.format(record));
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    private final Logger ingest = Logger.getLogger("io.tributary.ingest");

    @BeforeEach
    void captureLogs() {
        ingest.addHandler(capture);
    }

    @AfterEach
    void release() {
        ingest.removeHandler(capture);
        LogContext.clear();
    }

    @Test
    void anIngestionLineCarriesTheStreamTheTableVersionAndTheBatchSize() throws Exception {
        Tables tables = Tables.forWarehouse(warehouse.toString(), Optional.empty());
        StreamSchema schema = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
                SideSchema.compile(new SchemaSource.Plain(), "payload_schema"));
        String location = tables.defaultLocation("main", "s", "logged");
        tables.create(location, schema.rowSchema(), Map.of(new PartitionKey("t", 0), 0L));
        StreamIngester ingester = new StreamIngester(tables.open(location), schema.rowSchema(),
                schema.keySide().newDecoder(), schema.valueSide().newDecoder());
        MicroBatch.Builder batch = MicroBatch.builder();
        for (long o = 0; o < 3; o++) {
            batch.add(new SourceRecord("t", 0, o, 1_700_000_000_000L + o, null,
                    ("v" + o).getBytes(StandardCharsets.UTF_8)));
        }

        // What a runtime does on the thread that ingests the stream's batches.
        LogContext.stream("main.s.logged");
        CommitResult result = ingester.ingest(batch.build()).orElseThrow();

        List<JsonNode> committed = new ArrayList<>();
        synchronized (lines) {
            for (String line : lines) {
                JsonNode n = JSON.readTree(line);
                if (n.path("message").asText().contains("committed")) {
                    committed.add(n);
                }
            }
        }
        assertThat(committed).as("one line per commit, in " + lines).hasSize(1);
        JsonNode line = committed.get(0);
        assertThat(line.path("loggerName").asText()).isEqualTo(StreamIngester.class.getName());
        assertThat(line.path("level").asText()).isEqualTo("INFO");
        JsonNode mdc = line.path("mdc");
        assertThat(mdc.path("stream").asText()).isEqualTo("main.s.logged");
        assertThat(mdc.path("table_version").asText()).isEqualTo(Long.toString(result.tableVersion()));
        assertThat(mdc.path("batch_size").asText()).isEqualTo("3");
        assertThat(line.path("message").asText()).contains("main.s.logged")
                .contains("as table version " + result.tableVersion());
    }
}
