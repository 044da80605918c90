package io.tributary.features;

import io.tributary.delta.Column;
import io.tributary.delta.DataFile;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * The batch form of point-in-time lookups, for training sets: reads a Delta table of (entity, time) rows — the spine —
 * and writes a new Delta table with one row per spine row: the spine's scalar top-level columns (labels included) and
 * each feature as it was known at the row's time, by exactly the rule of a lookup with {@code as_of}: from the offline
 * table's final windows only, a tumbling or sliding feature its newest window ending at or before the time, a rolling
 * feature its newest row ending at or before the time rounded down to its precision (where its value last changed).
 * No value is computed from a record after the row's time.
 *
 * <p>One pass over the spine and one over the offline table (only the rows of the spine's entities are kept: per
 * entity and feature the windows' ends and values, sorted, then a binary search per spine row); the output is written
 * in files of {@link #ROWS_PER_FILE} rows and committed once, so a reader sees all of it or none. Memory is the spine
 * plus the offline windows of its entities, hence {@link #MAX_SPINE_ROWS}.
 */
public final class PointInTime {
    public static final int MAX_SPINE_ROWS = 5_000_000;
    static final int ROWS_PER_FILE = 200_000;
    private static final Set<String> COPIED = Set.of("string", "bigint", "integer", "int", "smallint", "tinyint",
            "double", "float", "boolean", "timestamp");

    private final Tables tables;

    public PointInTime(Tables tables) {
        this.tables = tables;
    }

    /** What a run wrote: rows, rows whose entity had at least one window by then, spine columns not copied. */
    public record Result(long rows, long matched, long outputVersion, List<String> columnsNotCopied) {}

    /**
     * @param timestampColumn the spine's top-level timestamp column (or bigint epoch milliseconds)
     * @throws FeatureDefinitionException naming {@code spine_table} or {@code timestamp_column} when the spine does not
     *     fit the view (a missing or mistyped entity or time column, a column named like a feature)
     * @throws io.tributary.delta.TableExistsException when a table is already at {@code outputLocation}
     */
    public Result run(FeatureViewSpec spec, String spineLocation, String timestampColumn, String outputLocation) {
        List<Column> spineColumns = tables.columns(spineLocation);
        Map<String, Column> byName = new HashMap<>();
        spineColumns.forEach(c -> byName.put(c.name(), c));
        for (int i = 0; i < spec.entityNames().size(); i++) {
            String name = spec.entityNames().get(i);
            Column c = byName.get(name);
            boolean string = spec.entityTypes().get(i).equals("string");
            if (c == null || (string ? !c.type().equals("string") : !integer(c.type()))) {
                throw new FeatureDefinitionException("spine_table", "needs a top-level " + (string ? "string"
                        : "integer") + " column " + name + " (the view's entity columns are " + spec.entityNames()
                        + ")" + (c == null ? "" : ", it is " + c.type()));
            }
        }
        Column ts = byName.get(timestampColumn);
        if (ts == null || !(ts.type().equals("timestamp") || ts.type().equals("timestamp_ntz")
                || ts.type().equals("bigint"))) {
            throw new FeatureDefinitionException("timestamp_column", "must name a top-level timestamp column (or "
                    + "bigint epoch milliseconds) of the spine, got '" + timestampColumn + "'"
                    + (ts == null ? "" : " of type " + ts.type()));
        }
        Set<String> featureNames = new HashSet<>();
        spec.features().forEach(f -> featureNames.add(f.name()));
        List<Column> copied = new ArrayList<>();
        List<String> notCopied = new ArrayList<>();
        for (Column c : spineColumns) {
            if (featureNames.contains(c.name())) {
                throw new FeatureDefinitionException("spine_table", "has a column " + c.name() + ", the name of a "
                        + "feature of the view; rename or drop it");
            }
            if (COPIED.contains(c.type())) {
                copied.add(c);
            } else {
                notCopied.add(c.name());
            }
        }

        List<Object[]> spine = new ArrayList<>();
        List<String> entityOf = new ArrayList<>();
        List<Long> timeOf = new ArrayList<>();
        List<List<String>> entityPaths = spec.entityNames().stream().map(List::of).toList();
        Set<String> columnsRead = new LinkedHashSet<>();
        copied.forEach(c -> columnsRead.add(c.name()));
        columnsRead.addAll(spec.entityNames());
        columnsRead.add(timestampColumn);
        try (TableRows rows = tables.read(spineLocation, columnsRead)) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                if (spine.size() >= MAX_SPINE_ROWS) {
                    throw new FeatureDefinitionException("spine_table", "has more than " + MAX_SPINE_ROWS
                            + " rows; split it");
                }
                Object[] values = new Object[copied.size()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = row.get(copied.get(i).name());
                }
                spine.add(values);
                entityOf.add(EntityKeys.of(row, entityPaths));
                timeOf.add(Materializer.millis(row.get(timestampColumn)));
            }
        }

        Map<String, Windows[]> windows = offlineWindows(spec, new HashSet<>(entityOf));
        boolean everyStep = OfflineFeatures.rollingEveryStep(tables, spec);
        Schema schema = schema(spec, copied);
        DeltaTable out = tables.create(outputLocation, schema, Map.of());
        long basedOn = out.version();
        List<DataFile> files = new ArrayList<>();
        List<GenericRecord> chunk = new ArrayList<>();
        long matched = 0;
        int nf = spec.features().size();
        for (int r = 0; r < spine.size(); r++) {
            GenericRecord rec = new GenericData.Record(schema);
            Object[] values = spine.get(r);
            for (int i = 0; i < values.length; i++) {
                rec.put(copied.get(i).name(), avroValue(copied.get(i).type(), values[i]));
            }
            Windows[] own = entityOf.get(r) == null ? null : windows.get(entityOf.get(r));
            Long t = timeOf.get(r);
            boolean any = false;
            for (int f = 0; f < nf && own != null && t != null; f++) {
                Feature feature = spec.features().get(f);
                int at = own[f].at(feature.window(), t, everyStep);
                // a rolling row without a value is the window left empty: no window, as before the entity's first
                if (at >= 0 && (feature.window().kind() != FeatureWindow.Kind.ROLLING
                        || own[f].values.get(at) != null)) {
                    any = true;
                    rec.put(feature.name(), own[f].values.get(at));
                }
            }
            matched += any ? 1 : 0;
            chunk.add(rec);
            if (chunk.size() == ROWS_PER_FILE) {
                files.add(out.writeDataFile(chunk));
                chunk = new ArrayList<>();
            }
        }
        if (!chunk.isEmpty()) {
            files.add(out.writeDataFile(chunk));
        }
        long version = out.commitExclusive(basedOn, files, Map.of());
        return new Result(spine.size(), matched, version, notCopied);
    }

    /** One entity's final windows of one feature, by end (ascending), with their values. */
    static final class Windows {
        long[] ends = new long[4];
        int size;
        final List<Object> values = new ArrayList<>();

        void add(long end, Object value) {
            if (size == ends.length) {
                ends = Arrays.copyOf(ends, size * 2);
            }
            ends[size++] = end;
            values.add(value);
        }

        void sort() {
            Integer[] order = new Integer[size];
            for (int i = 0; i < size; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> Long.compare(ends[a], ends[b]));
            long[] e = new long[size];
            List<Object> v = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                e[i] = ends[order[i]];
                v.add(values.get(order[i]));
            }
            ends = e;
            values.clear();
            values.addAll(v);
        }

        /**
         * The index of the window that answers as of {@code t} (as {@code FeatureLookup}'s as_of rule), or -1: the
         * last end at or before t, a rolling feature's at or before t's precision step (its value changed there and
         * held since) or, in a table of a rolling row at every step ({@code everyStep}), at that step exactly.
         */
        int at(FeatureWindow w, long t, boolean everyStep) {
            boolean rolling = w.kind() == FeatureWindow.Kind.ROLLING;
            int i = Arrays.binarySearch(ends, 0, size, rolling ? w.endAtOrBefore(t) : t);
            if (rolling && everyStep) {
                return i >= 0 ? i : -1;
            }
            return i >= 0 ? i : -i - 2; // -1 when every end is after t
        }
    }

    private Map<String, Windows[]> offlineWindows(FeatureViewSpec spec, Set<String> entities) {
        Map<String, Windows[]> out = new HashMap<>();
        if (!tables.exists(spec.offlineLocation())) {
            return out;
        }
        List<List<String>> paths = spec.entityNames().stream().map(List::of).toList();
        List<Feature> features = spec.features();
        try (TableRows rows = tables.read(spec.offlineLocation())) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                String entity = EntityKeys.of(row, paths);
                if (entity == null || !entities.contains(entity)) {
                    continue;
                }
                Windows[] own = out.computeIfAbsent(entity, e -> {
                    Windows[] w = new Windows[features.size()];
                    for (int f = 0; f < w.length; f++) {
                        w[f] = new Windows();
                    }
                    return w;
                });
                long start = ((Instant) row.get("window_start")).toEpochMilli();
                long end = ((Instant) row.get("window_end")).toEpochMilli();
                for (int f = 0; f < features.size(); f++) {
                    FeatureWindow w = features.get(f).window();
                    // A row holds the windows of every feature of its shape; the others' columns are null there.
                    if (end - start == w.durationMs() && Math.floorMod(start, w.slideMs()) == 0) {
                        own[f].add(end, row.get(features.get(f).name()));
                    }
                }
            }
        }
        out.values().forEach(ws -> Arrays.stream(ws).forEach(Windows::sort));
        return out;
    }

    static Schema schema(FeatureViewSpec spec, List<Column> copied) {
        SchemaBuilder.FieldAssembler<Schema> fields = SchemaBuilder.record("tributary_point_in_time_row").fields();
        for (Column c : copied) {
            fields = fields.name(c.name()).type(Schema.createUnion(Schema.create(Schema.Type.NULL), avroType(c.type())))
                    .withDefault(null);
        }
        for (Feature f : spec.features()) {
            Schema.Type t = switch (f.outputType()) {
                case "bigint" -> Schema.Type.LONG;
                case "double" -> Schema.Type.DOUBLE;
                default -> Schema.Type.STRING;
            };
            fields = fields.name(f.name()).type(Schema.createUnion(Schema.create(Schema.Type.NULL),
                    Schema.create(t))).withDefault(null);
        }
        return fields.endRecord();
    }

    private static Schema avroType(String type) {
        return switch (type) {
            case "string" -> Schema.create(Schema.Type.STRING);
            case "bigint", "integer", "int", "smallint", "tinyint" -> Schema.create(Schema.Type.LONG);
            case "double", "float" -> Schema.create(Schema.Type.DOUBLE);
            case "boolean" -> Schema.create(Schema.Type.BOOLEAN);
            default -> LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
        };
    }

    private static Object avroValue(String type, Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Instant i) {
            return i.getEpochSecond() * 1_000_000 + i.getNano() / 1_000;
        }
        if (v instanceof LocalDateTime t) {
            Instant i = t.toInstant(ZoneOffset.UTC);
            return i.getEpochSecond() * 1_000_000 + i.getNano() / 1_000;
        }
        if (v instanceof Float f) {
            return f.doubleValue();
        }
        if (v instanceof Number n && !(v instanceof Double)) {
            return n.longValue();
        }
        return v;
    }

    private static boolean integer(String type) {
        return type.equals("bigint") || type.equals("integer") || type.equals("int") || type.equals("smallint")
                || type.equals("tinyint");
    }
}
