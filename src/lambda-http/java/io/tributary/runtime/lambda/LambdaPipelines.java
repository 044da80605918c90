package io.tributary.runtime.lambda;

import io.tributary.ingest.PipelineControl;
import io.tributary.ingest.PipelineSpec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;

/**
 * The stream-api function's pipelines: a stream's event source mappings (IngestMappings), their ids kept in
 * {@code ingest_mappings}. The registry calls start and stop on a worker thread, so the ids go through plain JDBC
 * rather than a reactive session of another context.
 */
@ApplicationScoped
public class LambdaPipelines implements PipelineControl {

    @Inject
    IngestMappings mappings;
    @Inject
    DataSource database;

    @Override
    public void start(PipelineSpec spec) {
        List<String> ids = mappings.create(spec);
        try (Connection c = database.getConnection();
                PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO ingest_mappings (stream_id, mapping_ids) VALUES (?, ?)")) {
            insert.setString(1, spec.streamId());
            insert.setString(2, String.join(",", ids));
            insert.executeUpdate();
        } catch (SQLException e) {
            // Unrecorded mappings could never be deleted: remove them now; the registry then removes the stream.
            mappings.delete(spec.streamId(), ids);
            throw new IllegalStateException("cannot record the event source mappings of stream " + spec.streamId(), e);
        }
    }

    @Override
    public void stop(String streamId) {
        mappings.delete(streamId, mappingIds(streamId));
        try (Connection c = database.getConnection();
                PreparedStatement delete = c.prepareStatement("DELETE FROM ingest_mappings WHERE stream_id = ?")) {
            delete.setString(1, streamId);
            delete.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot forget the event source mappings of stream " + streamId, e);
        }
    }

    /** The ids recorded for the stream; none when it has no mappings (never started, or stopped before). */
    List<String> mappingIds(String streamId) {
        try (Connection c = database.getConnection();
                PreparedStatement select = c.prepareStatement(
                        "SELECT mapping_ids FROM ingest_mappings WHERE stream_id = ?")) {
            select.setString(1, streamId);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next() || rs.getString(1).isEmpty()) {
                    return List.of();
                }
                return Arrays.asList(rs.getString(1).split(","));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the event source mappings of stream " + streamId, e);
        }
    }
}
