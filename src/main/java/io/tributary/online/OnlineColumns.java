package io.tributary.online;

import io.tributary.delta.LeafColumn;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The columns of a synced table, from its source's schema: every struct opened up to its fields, each named by its
 * path joined with {@code _} ({@code value.user_id} becomes {@code value_user_id}), typed by {@link #pgType}.
 */
public final class OnlineColumns {
    /** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1 bytes), which could merge two columns. */
    static final int MAX_NAME_BYTES = 63;
    /**
     * PostgreSQL's most columns in a table: a source wider than that once its structs are opened up (a schema may have
     * up to {@code TRIBUTARY_MAX_COLUMNS}, 10,000) was accepted and every sync of it failed ("tables can have at most
     * 1600 columns"); now the create is a 400 and a source that grows past it stops its synced table, saying why.
     */
    static final int MAX_COLUMNS = 1_600;
    private static final Pattern DECIMAL = Pattern.compile("decimal\\((\\d+),(\\d+)\\)");

    private final List<OnlineColumn> columns;
    private final Map<String, OnlineColumn> byPath = new HashMap<>();
    private final Map<String, OnlineColumn> byName = new LinkedHashMap<>();

    private OnlineColumns(List<OnlineColumn> columns) {
        this.columns = List.copyOf(columns);
        for (OnlineColumn c : columns) {
            byPath.put(String.join(".", c.path()), c);
            byName.put(c.name(), c);
        }
    }

    /**
     * The columns for a source schema's leaf columns.
     *
     * @throws SyncException when two paths flatten to one name or a name is too long for PostgreSQL
     */
    public static OnlineColumns of(List<LeafColumn> leaves) {
        List<OnlineColumn> out = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        for (LeafColumn leaf : leaves) {
            String path = String.join(".", leaf.path());
            String name = String.join("_", leaf.path());
            String other = seen.putIfAbsent(name.toLowerCase(Locale.ROOT), path);
            if (other != null) {
                throw new SyncException("source columns '" + other + "' and '" + path + "' both flatten to the "
                        + "PostgreSQL column '" + name + "'; rename one in the source");
            }
            if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
                throw new SyncException("source column '" + path + "' flattens to '" + name + "', longer than "
                        + "PostgreSQL's " + MAX_NAME_BYTES + "-byte identifiers");
            }
            out.add(new OnlineColumn(name, leaf.path(), leaf.type(), pgType(leaf.type())));
        }
        if (out.size() > MAX_COLUMNS) {
            throw new SyncException("the source has " + out.size() + " columns once its structs are opened up; a "
                    + "PostgreSQL table holds at most " + MAX_COLUMNS + ", so this source cannot be synced (a Delta "
                    + "table of the columns needed, registered with POST /api/2.1/unity-catalog/tables, can)");
        }
        return new OnlineColumns(out);
    }

    /**
     * PostgreSQL's type for a Delta type (SPEC "Synced tables"): boolean; tinyint and smallint → smallint; int →
     * integer; bigint; float → real; double → double precision; string → text; binary → bytea; date; timestamp →
     * timestamptz; timestamp_ntz → timestamp; decimal(p,s) → numeric(p,s); arrays, maps and variants → jsonb.
     */
    public static String pgType(String deltaType) {
        String t = deltaType.toLowerCase(Locale.ROOT);
        Matcher d = DECIMAL.matcher(t);
        if (d.matches()) {
            return "numeric(" + d.group(1) + "," + d.group(2) + ")";
        }
        return switch (t) {
            case "boolean" -> "boolean";
            case "tinyint", "smallint" -> "smallint";
            case "int" -> "integer";
            case "bigint" -> "bigint";
            case "float" -> "real";
            case "double" -> "double precision";
            case "string" -> "text";
            case "binary" -> "bytea";
            case "date" -> "date";
            case "timestamp" -> "timestamptz";
            case "timestamp_ntz" -> "timestamp";
            default -> "jsonb"; // array<...>, map<...>, variant
        };
    }

    public List<OnlineColumn> all() {
        return columns;
    }

    /** The column of a dotted source path, or null. */
    public OnlineColumn atPath(String dottedPath) {
        return byPath.get(dottedPath);
    }

    /** The column of a PostgreSQL name, or null. */
    public OnlineColumn named(String name) {
        return byName.get(name);
    }

    /**
     * The primary key's columns, checked: every path a column of the source, none a jsonb, bytea or floating one
     * (they have no dependable equality).
     */
    public List<OnlineColumn> key(List<String> paths) {
        List<OnlineColumn> out = new ArrayList<>();
        for (String p : paths) {
            OnlineColumn c = atPath(p);
            if (c == null) {
                throw new SyncException("primary key column '" + p + "' is not a column of the source; use a dotted "
                        + "path to a field that is not a struct, one of " + paths());
            }
            if (c.json() || c.pgType().equals("bytea") || c.pgType().equals("real")
                    || c.pgType().equals("double precision")) {
                throw new SyncException("primary key column '" + p + "' is of type " + c.deltaType()
                        + ", which cannot be a key; choose a string, integer, decimal, date or timestamp column");
            }
            if (out.contains(c)) {
                throw new SyncException("primary key column '" + p + "' is named twice");
            }
            out.add(c);
        }
        return out;
    }

    /** The timeseries key's column, checked like a key column but any orderable type; null for no path. */
    public OnlineColumn timeseries(String path) {
        if (path == null) {
            return null;
        }
        OnlineColumn c = atPath(path);
        if (c == null) {
            throw new SyncException("timeseries key '" + path + "' is not a column of the source; use a dotted path "
                    + "to a field that is not a struct, e.g. stream_record_timestamp");
        }
        if (c.json() || c.pgType().equals("bytea") || c.pgType().equals("boolean")) {
            throw new SyncException("timeseries key '" + path + "' is of type " + c.deltaType()
                    + ", which cannot order rows; choose a timestamp, date or number column");
        }
        return c;
    }

    private List<String> paths() {
        return columns.stream().map(c -> String.join(".", c.path())).limit(20).toList();
    }
}
