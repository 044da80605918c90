package io.tributary.registry.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * One short statement on the registry's JDBC pool, a connection per call: for the stores whose callers are plain
 * threads as well as the API (synced tables, feature views), which have nothing to hold in a Hibernate session. A
 * failure is an {@link IllegalStateException} that says which registry rows it was reading.
 */
public final class Jdbc {
    /** Maps the current row of a result. */
    @FunctionalInterface
    public interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    private final DataSource database;
    private final String what;

    /** {@code what} ends the failure's message: "the registry database failed on {what}". */
    public Jdbc(DataSource database, String what) {
        this.database = database;
        this.what = what;
    }

    /** Every row the query answers, mapped. Parameters: strings, numbers, {@link Instant}s, null. */
    public <T> List<T> list(String sql, RowMapper<T> mapper, Object... params) {
        try (Connection c = database.getConnection(); PreparedStatement s = prepare(c, sql, params);
                ResultSet rs = s.executeQuery()) {
            List<T> out = new ArrayList<>();
            while (rs.next()) {
                out.add(mapper.map(rs));
            }
            return out;
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /** The first row the query answers, mapped, or empty. */
    public <T> Optional<T> first(String sql, RowMapper<T> mapper, Object... params) {
        try (Connection c = database.getConnection(); PreparedStatement s = prepare(c, sql, params);
                ResultSet rs = s.executeQuery()) {
            return rs.next() ? Optional.of(mapper.map(rs)) : Optional.empty();
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /** True when the query answers a row. */
    public boolean exists(String sql, Object... params) {
        return first(sql, rs -> Boolean.TRUE, params).isPresent();
    }

    /** The rows an INSERT, UPDATE or DELETE changed. */
    public int update(String sql, Object... params) {
        try (Connection c = database.getConnection(); PreparedStatement s = prepare(c, sql, params)) {
            return s.executeUpdate();
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /** The LIKE pattern of the names that start with {@code prefix} (its wildcards escaped). */
    public static String startingWith(String prefix) {
        return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
    }

    /** A nullable timestamp column as an instant. */
    public static Instant instant(ResultSet rs, int column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    private static PreparedStatement prepare(Connection c, String sql, Object[] params) throws SQLException {
        PreparedStatement s = c.prepareStatement(sql);
        try {
            for (int i = 0; i < params.length; i++) {
                Object p = params[i];
                s.setObject(i + 1, p instanceof Instant at ? Timestamp.from(at) : p);
            }
            return s;
        } catch (SQLException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private IllegalStateException failed(SQLException e) {
        return new IllegalStateException("the registry database failed on " + what + ": " + e.getMessage(), e);
    }
}
