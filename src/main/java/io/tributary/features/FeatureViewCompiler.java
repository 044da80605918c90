package io.tributary.features;

import io.tributary.delta.LeafColumn;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks a definition against the source table's columns and compiles it. Every problem is a
 * {@link FeatureDefinitionException} naming the request field and what to write instead, so nothing is registered that
 * materialization would later refuse.
 */
public final class FeatureViewCompiler {
    public static final String DEFAULT_TIMESTAMP = "stream_record_timestamp";
    static final int MAX_FEATURES = 100;
    /** Rolling windows are evaluated in steps of their duration / this by default. */
    static final long ROLLING_STEPS = 60;
    private static final Pattern FEATURE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final Set<String> RESERVED = Set.of("window_start", "window_end", "as_of");

    private FeatureViewCompiler() {}

    public static FeatureViewSpec compile(String id, String name, String sourceLocation, String offlineLocation,
            String tables, FeatureViewDefinition d, List<LeafColumn> columns) {
        List<String> entities = d.entityColumns();
        if (entities == null || entities.isEmpty()) {
            throw new FeatureDefinitionException("entity_columns", "name at least one column, as a dotted path such "
                    + "as value.user_id");
        }
        if (entities.size() > 8) {
            throw new FeatureDefinitionException("entity_columns", "name at most 8 columns");
        }
        List<List<String>> entityPaths = new ArrayList<>();
        List<String> entityNames = new ArrayList<>();
        List<String> entityTypes = new ArrayList<>();
        for (int i = 0; i < entities.size(); i++) {
            String field = "entity_columns[" + i + "]";
            LeafColumn col = column(field, entities.get(i), columns);
            if (!col.type().equals("string") && !integer(col.type())) {
                throw new FeatureDefinitionException(field, "'" + entities.get(i) + "' is " + col.type()
                        + "; an entity column must be a string or an integer");
            }
            String flat = String.join("_", col.path());
            if (entityNames.contains(flat)) {
                throw new FeatureDefinitionException(field, "'" + entities.get(i) + "' is named twice");
            }
            entityPaths.add(col.path());
            entityNames.add(flat);
            entityTypes.add(col.type());
        }
        String tsText = d.timestampColumn() == null || d.timestampColumn().isBlank() ? DEFAULT_TIMESTAMP
                : d.timestampColumn();
        LeafColumn ts = column("timestamp_column", tsText, columns);
        boolean tsLong = ts.type().equals("bigint") || ts.type().equals("int");
        if (!ts.type().equals("timestamp") && !ts.type().equals("timestamp_ntz") && !tsLong) {
            throw new FeatureDefinitionException("timestamp_column", "'" + tsText + "' is " + ts.type() + "; the "
                    + "timestamp column must be a timestamp or an integer of epoch milliseconds");
        }
        long lateness = d.allowedLateness() == null ? 0
                : Durations.parse("allowed_lateness", d.allowedLateness(), true);

        List<FeatureViewDefinition.FeatureDefinition> defs = d.features();
        if (defs == null || defs.isEmpty()) {
            throw new FeatureDefinitionException("features", "define at least one feature");
        }
        if (defs.size() > MAX_FEATURES) {
            throw new FeatureDefinitionException("features", "define at most " + MAX_FEATURES + " features");
        }
        Set<String> names = new HashSet<>(entityNames);
        List<Feature> features = new ArrayList<>();
        for (int i = 0; i < defs.size(); i++) {
            String field = "features[" + i + "]";
            FeatureViewDefinition.FeatureDefinition f = defs.get(i);
            if (f == null) {
                throw new FeatureDefinitionException(field, "must be an object with name, function and window");
            }
            if (f.name() == null || !FEATURE_NAME.matcher(f.name()).matches() || RESERVED.contains(f.name())) {
                throw new FeatureDefinitionException(field + ".name", "must be a lower-case identifier (letters, "
                        + "digits, _; at most 63) other than window_start, window_end and as_of");
            }
            if (!names.add(f.name())) {
                throw new FeatureDefinitionException(field + ".name", "'" + f.name() + "' is taken by another "
                        + "feature or an entity column");
            }
            FeatureFunction fn = FeatureFunction.parse(field + ".function", f.function());
            List<String> path = null;
            boolean numeric = false;
            if (f.column() != null) {
                LeafColumn col = column(field + ".column", f.column(), columns);
                numeric = numeric(col.type());
                if (fn.numeric() && !numeric) {
                    throw new FeatureDefinitionException(field + ".column", "'" + f.column() + "' is " + col.type()
                            + "; " + fn.apiName() + " needs a numeric column");
                }
                if ((fn == FeatureFunction.FIRST || fn == FeatureFunction.LAST) && !numeric
                        && !col.type().equals("string")) {
                    throw new FeatureDefinitionException(field + ".column", "'" + f.column() + "' is " + col.type()
                            + "; " + fn.apiName() + " takes a numeric or string column");
                }
                if (fn == FeatureFunction.APPROX_COUNT_DISTINCT && !numeric && !col.type().equals("string")
                        && !col.type().equals("boolean") && !col.type().startsWith("timestamp")
                        && !col.type().equals("date")) {
                    throw new FeatureDefinitionException(field + ".column", "'" + f.column() + "' is " + col.type()
                            + "; approx_count_distinct takes a scalar column");
                }
                path = col.path();
            } else if (fn.needsColumn()) {
                throw new FeatureDefinitionException(field + ".column", "is required for " + fn.apiName()
                        + ": a dotted column path such as value.amount");
            }
            features.add(new Feature(f.name(), fn, path, numeric, window(field + ".window", f.window())));
        }
        return new FeatureViewSpec(id, name, sourceLocation, entityPaths, entityNames, entityTypes, ts.path(),
                tsLong, lateness, features, offlineLocation, tables);
    }

    /**
     * Checks that the source's columns still fit a view compiled earlier: each column it reads is still there, of the
     * kind it was compiled for (an entity string or integer, the time a timestamp or epoch milliseconds, a feature's
     * column numeric or not, as its tiles and offline column are). Another writer of a registered source may change a
     * type in place (keeping the table's id); a process compiling the view afresh refuses it, and a process that
     * compiled it before must too, rather than fail on the first value of the other type at every round.
     */
    public static void checkStillFits(FeatureViewSpec spec, List<LeafColumn> columns) {
        // One pass over the source's columns (a schema may have thousands), keeping those the view reads.
        java.util.Map<List<String>, LeafColumn> read = new java.util.HashMap<>();
        spec.entityPaths().forEach(p -> read.put(p, null));
        read.put(spec.timestampPath(), null);
        spec.features().stream().filter(f -> f.column() != null).forEach(f -> read.put(f.column(), null));
        for (LeafColumn c : columns) {
            read.computeIfPresent(c.path(), (k, v) -> c);
        }
        for (int i = 0; i < spec.entityPaths().size(); i++) {
            String field = "entity_columns[" + i + "]";
            LeafColumn col = present(field, spec.entityPaths().get(i), read, columns);
            boolean wasString = spec.entityTypes().get(i).equals("string");
            if (wasString ? !col.type().equals("string") : !integer(col.type())) {
                throw new FeatureDefinitionException(field, "'" + String.join(".", col.path()) + "' is " + col.type()
                        + " now; the view was created over a " + (wasString ? "string" : "integer") + " column");
            }
        }
        LeafColumn ts = present("timestamp_column", spec.timestampPath(), read, columns);
        boolean tsLong = ts.type().equals("bigint") || ts.type().equals("int");
        if (tsLong != spec.timestampIsLong() || !tsLong && !ts.type().startsWith("timestamp")) {
            throw new FeatureDefinitionException("timestamp_column", "'" + String.join(".", ts.path()) + "' is "
                    + ts.type() + " now; the view was created over " + (spec.timestampIsLong()
                            ? "an integer of epoch milliseconds" : "a timestamp"));
        }
        for (int i = 0; i < spec.features().size(); i++) {
            Feature f = spec.features().get(i);
            if (f.column() == null) {
                continue;
            }
            String field = "features[" + i + "].column";
            LeafColumn col = present(field, f.column(), read, columns);
            boolean firstOrLast = f.function() == FeatureFunction.FIRST || f.function() == FeatureFunction.LAST;
            // first and last keep numbers as doubles and strings as strings, in tiles and in the offline column
            if (f.function().numeric() && !numeric(col.type()) || firstOrLast && (numeric(col.type()) != f.numeric()
                    || !f.numeric() && !col.type().equals("string"))) {
                throw new FeatureDefinitionException(field, "'" + String.join(".", col.path()) + "' is "
                        + col.type() + " now; " + f.function().apiName() + " of feature '" + f.name()
                        + "' was created over a " + (f.numeric() ? "numeric" : "string") + " column");
            }
        }
    }

    private static LeafColumn present(String field, List<String> path, java.util.Map<List<String>, LeafColumn> read,
            List<LeafColumn> columns) {
        LeafColumn c = read.get(path);
        return c != null ? c : column(field, String.join(".", path), columns);
    }

    private static FeatureWindow window(String field, FeatureViewDefinition.WindowDefinition w) {
        int given = w == null ? 0 : (w.tumbling() != null ? 1 : 0) + (w.sliding() != null ? 1 : 0)
                + (w.rolling() != null ? 1 : 0);
        if (given != 1) {
            throw new FeatureDefinitionException(field, "must be exactly one of {\"tumbling\": {\"duration\": "
                    + "\"10m\"}}, {\"sliding\": {\"duration\": \"1h\", \"slide\": \"5m\"}}, {\"rolling\": "
                    + "{\"duration\": \"30m\"}}");
        }
        if (w.tumbling() != null) {
            noExtra(field + ".tumbling", w.tumbling().slide(), "slide");
            noExtra(field + ".tumbling", w.tumbling().precision(), "precision");
            long d = Durations.parse(field + ".tumbling.duration", w.tumbling().duration(), false);
            return new FeatureWindow(FeatureWindow.Kind.TUMBLING, d, d);
        }
        if (w.sliding() != null) {
            noExtra(field + ".sliding", w.sliding().precision(), "precision");
            long d = Durations.parse(field + ".sliding.duration", w.sliding().duration(), false);
            long s = Durations.parse(field + ".sliding.slide", w.sliding().slide(), false);
            if (s > d) {
                throw new FeatureDefinitionException(field + ".sliding.slide", "must be at most the duration ("
                        + Durations.format(d) + "); for windows that do not overlap use tumbling");
            }
            tiles(field + ".sliding", d, s);
            return new FeatureWindow(FeatureWindow.Kind.SLIDING, d, s);
        }
        noExtra(field + ".rolling", w.rolling().slide(), "slide");
        long d = Durations.parse(field + ".rolling.duration", w.rolling().duration(), false);
        long p;
        if (w.rolling().precision() != null) {
            p = Durations.parse(field + ".rolling.precision", w.rolling().precision(), false);
            if (d % p != 0) {
                throw new FeatureDefinitionException(field + ".rolling.precision", "must divide the duration ("
                        + Durations.format(d) + ") evenly");
            }
        } else {
            p = d % ROLLING_STEPS == 0 ? d / ROLLING_STEPS : FeatureWindow.gcd(d, 1000);
        }
        tiles(field + ".rolling", d, p);
        return new FeatureWindow(FeatureWindow.Kind.ROLLING, d, p);
    }

    /** Bounded tiles per window keep a window's combination (and a lookup) cheap. */
    private static void tiles(String field, long d, long s) {
        long tiles = d / FeatureWindow.gcd(d, s);
        if (tiles > 1_440) {
            throw new FeatureDefinitionException(field, "needs " + tiles + " tiles per window (duration / gcd of "
                    + "duration and step); at most 1440: make the duration a multiple of the step");
        }
    }

    private static void noExtra(String field, String value, String name) {
        if (value != null) {
            throw new FeatureDefinitionException(field + "." + name, "does not apply to this window kind; remove it");
        }
    }

    private static LeafColumn column(String field, String dotted, List<LeafColumn> columns) {
        if (dotted == null || dotted.isBlank()) {
            throw new FeatureDefinitionException(field, "is required: a dotted column path such as value.user_id");
        }
        for (LeafColumn c : columns) {
            if (String.join(".", c.path()).equals(dotted)) {
                return c;
            }
        }
        List<String> known = columns.stream().map(c -> String.join(".", c.path())).limit(30).toList();
        throw new FeatureDefinitionException(field, "the source has no column '" + Durations.shorten(dotted)
                + "'; its columns are " + known);
    }

    static boolean integer(String type) {
        return type.equals("tinyint") || type.equals("smallint") || type.equals("int") || type.equals("bigint");
    }

    static boolean numeric(String type) {
        return integer(type) || type.equals("float") || type.equals("double") || type.startsWith("decimal");
    }
}
