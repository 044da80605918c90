package io.tributary.lambda.mappings;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The registry's record of each stream's event source mappings ({@code ingest_mappings}, one row per stream, and
 * {@code ingest_mapping_topics}, one per mapping): Lambda would list mappings by function only with IAM on every
 * resource, which the deployment does not grant. Plain JDBC: stream-api calls it on a worker thread and backfill on
 * its handler thread, neither in a reactive session.
 *
 * <p>A stream's row is the lock between a delete (stream-api) and the schedule's pattern refresh (backfill):
 * {@link #update} holds it while it adds or removes mappings, and {@link #beginStop} takes it to mark the stream as
 * stopping, so a refresh either finishes before the delete reads the ids or sees the mark and leaves the stream
 * alone. Without it a mapping created during a delete would be left invoking a removed alias.
 */
@ApplicationScoped
public class MappingRecords {

    /** One event source mapping; {@code topic} is null for mappings recorded before topics were kept. */
    public record Mapping(String topic, String id) {}

    /** What {@link #update} changes: the mappings created and the ids of those deleted. */
    public record Change(List<Mapping> added, List<String> removed) {
        static final Change NONE = new Change(List.of(), List.of());
    }

    /** Decides a change from the stream's recorded mappings, with the stream's row locked. */
    @FunctionalInterface
    public interface Updater {
        Change change(List<Mapping> current);
    }

    @Inject
    DataSource database;

    public MappingRecords() {}

    public MappingRecords(DataSource database) {
        this.database = database;
    }

    /** Records a started stream's mappings. */
    public void record(String streamId, List<Mapping> mappings) {
        try (Connection c = database.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO ingest_mappings (stream_id) VALUES (?)")) {
                insert.setString(1, streamId);
                insert.executeUpdate();
            }
            insert(c, streamId, mappings);
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot record the event source mappings of stream " + streamId, e);
        }
    }

    /** The stream's mappings; none when it has none recorded (never started, or stopped). */
    public List<Mapping> mappings(String streamId) {
        try (Connection c = database.getConnection()) {
            return select(c, streamId);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the event source mappings of stream " + streamId, e);
        }
    }

    /**
     * Marks the stream as stopping, once no {@link #update} holds it, and returns its mappings: from then on the
     * schedule neither adds nor removes any. {@link #forget} ends the stop once the mappings are gone.
     */
    public List<Mapping> beginStop(String streamId) {
        try (Connection c = database.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement mark = c.prepareStatement(
                    "UPDATE ingest_mappings SET stopping = TRUE WHERE stream_id = ?")) {
                mark.setString(1, streamId);
                mark.executeUpdate();
            }
            List<Mapping> mappings = select(c, streamId);
            c.commit();
            return mappings;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the event source mappings of stream " + streamId, e);
        }
    }

    /** Forgets the stream's mappings (after they were deleted). */
    public void forget(String streamId) {
        try (Connection c = database.getConnection();
                PreparedStatement delete = c.prepareStatement("DELETE FROM ingest_mappings WHERE stream_id = ?")) {
            delete.setString(1, streamId);
            delete.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot forget the event source mappings of stream " + streamId, e);
        }
    }

    /** Started streams, not being stopped, whose subscription is a {@code subscribe_pattern}: their ids. */
    public List<String> patternStreams() {
        List<String> ids = new ArrayList<>();
        try (Connection c = database.getConnection();
                PreparedStatement select = c.prepareStatement("SELECT m.stream_id FROM ingest_mappings m "
                        + "JOIN streams s ON s.id = m.stream_id WHERE NOT m.stopping AND s.definition::jsonb "
                        + "#>> '{source_config,kafka_stream_config,subscription_mode,subscribe_pattern}' IS NOT NULL "
                        + "ORDER BY s.full_name");
                ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
            return ids;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot list the streams with a subscribe_pattern", e);
        }
    }

    /**
     * Runs {@code updater} with the stream's row locked and records its change in the same transaction. Empty when the
     * stream is no longer started or is being stopped: then the updater does not run. When the change cannot be
     * recorded, the caller gets the exception and must delete the mappings the updater created.
     */
    public Optional<Change> update(String streamId, Updater updater) {
        try (Connection c = database.getConnection()) {
            c.setAutoCommit(false);
            try {
                try (PreparedStatement lock = c.prepareStatement(
                        "SELECT stopping FROM ingest_mappings WHERE stream_id = ? FOR UPDATE")) {
                    lock.setString(1, streamId);
                    try (ResultSet rs = lock.executeQuery()) {
                        if (!rs.next() || rs.getBoolean(1)) {
                            c.rollback();
                            return Optional.empty();
                        }
                    }
                }
                Change change = updater.change(select(c, streamId));
                insert(c, streamId, change.added());
                try (PreparedStatement delete = c.prepareStatement(
                        "DELETE FROM ingest_mapping_topics WHERE mapping_id = ?")) {
                    for (String id : change.removed()) {
                        delete.setString(1, id);
                        delete.addBatch();
                    }
                    delete.executeBatch();
                }
                c.commit();
                return Optional.of(change);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot update the event source mappings of stream " + streamId, e);
        }
    }

    private static void insert(Connection c, String streamId, Collection<Mapping> mappings) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement(
                "INSERT INTO ingest_mapping_topics (mapping_id, stream_id, topic) VALUES (?, ?, ?)")) {
            for (Mapping m : mappings) {
                insert.setString(1, m.id());
                insert.setString(2, streamId);
                insert.setString(3, m.topic());
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }

    private static List<Mapping> select(Connection c, String streamId) throws SQLException {
        List<Mapping> mappings = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement(
                "SELECT topic, mapping_id FROM ingest_mapping_topics WHERE stream_id = ? ORDER BY topic, mapping_id")) {
            select.setString(1, streamId);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    mappings.add(new Mapping(rs.getString(1), rs.getString(2)));
                }
            }
        }
        return mappings;
    }
}
