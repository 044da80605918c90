package io.tributary.features;

import io.tributary.delta.DataFile;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.NoSuchTableException;
import io.tributary.delta.RowFields;
import io.tributary.delta.RowSource;
import io.tributary.delta.TableExistsException;
import io.tributary.delta.Tables;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * The offline feature table of a view: a Delta table of final windows, one row per entity and window (entity
 * columns, {@code window_start}, {@code window_end}, one column per feature, null where the feature has another
 * window). Each append records in the same commit the source version it brings the table up to and the window end
 * through which it holds every final window ({@value #DOMAIN}), so a round repeated after a crash between this commit
 * and the online transaction appends nothing twice.
 */
public final class OfflineFeatures {
    public static final String DOMAIN = "tributary.feature.source";
    /**
     * Set by a table's first append: its rolling features have a row where their value changes, not at every
     * precision step as in tables written before (SPEC 10.3), which is how a reader takes them as of a time.
     */
    static final String ROWS_DOMAIN = "tributary.feature.rows";
    private static final String ROLLING_CHANGES = "{\"rolling\":\"changes\"}";
    private static final Pattern CONFIG = Pattern.compile(
            "\\{\"source_version\":(-?[0-9]+),\"final_through\":(-?[0-9]+)(?:,\"first_files\":([0-9]+))?}");

    private final Tables tables;

    public OfflineFeatures(Tables tables) {
        this.tables = tables;
    }

    /**
     * What the table holds: the source version and final-through of its last append; (-1, MIN) before any. While the
     * first round is under way (source version -1): how many of the snapshot's files its parts took.
     */
    public record Progress(long sourceVersion, long finalThrough, int firstFiles) {
        static final Progress NONE = new Progress(-1, Long.MIN_VALUE, 0);

        /** The table has had an append (a round's or a first round's part), which set the domains. */
        boolean appended() {
            return sourceVersion >= 0 || firstFiles > 0;
        }

        /** The table already holds what a round up to {@code sourceVersion} (or, at -1, {@code firstFiles}) adds. */
        boolean holds(long version, int files) {
            return version >= 0 ? sourceVersion >= version : sourceVersion >= 0 || firstFiles >= files;
        }

        String json() {
            return "{\"source_version\":" + sourceVersion + ",\"final_through\":" + finalThrough
                    + (firstFiles > 0 ? ",\"first_files\":" + firstFiles : "") + "}";
        }
    }

    /** Creates the table (an existing one is taken as is: a create that crashed after it). */
    public void create(FeatureViewSpec spec) {
        if (tables.exists(spec.offlineLocation())) {
            return;
        }
        try {
            tables.create(spec.offlineLocation(), schema(spec), Map.of());
        } catch (TableExistsException e) {
            // created meanwhile
        }
    }

    public void delete(FeatureViewSpec spec) {
        tables.delete(spec.offlineLocation());
    }

    DeltaTable open(FeatureViewSpec spec) {
        try {
            return tables.open(spec.offlineLocation());
        } catch (NoSuchTableException e) {
            create(spec);
            return tables.open(spec.offlineLocation());
        }
    }

    static Progress progress(DeltaTable table) {
        Optional<String> config = table.domainMetadata(DOMAIN);
        if (config.isEmpty()) {
            return Progress.NONE;
        }
        Matcher m = CONFIG.matcher(config.get());
        if (!m.matches()) {
            throw new IllegalStateException("the offline feature table at " + table.location() + " has an unreadable "
                    + DOMAIN + " domain: " + config.get());
        }
        return new Progress(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)),
                m.group(3) == null ? 0 : Integer.parseInt(m.group(3)));
    }

    /**
     * The table's rolling rows are changes only, or it has had no append yet and will get them so. Each domain read
     * loads the table's latest snapshot: given the {@link #progress} already read, this reads the mark only for a
     * table that has one to read.
     */
    static boolean rollingChanges(DeltaTable table, Progress progress) {
        return !progress.appended() || table.domainMetadata(ROWS_DOMAIN).map(ROLLING_CHANGES::equals).orElse(false);
    }

    static boolean rollingChanges(DeltaTable table) {
        return rollingChanges(table, progress(table));
    }

    /** For readers: the view's offline table exists and has a rolling row at every step (an earlier build's form). */
    static boolean rollingEveryStep(Tables tables, FeatureViewSpec spec) {
        return tables.exists(spec.offlineLocation()) && !rollingChanges(tables.open(spec.offlineLocation()));
    }

    /**
     * Rows per data file: a file's Parquet bytes are built in memory before they are stored, so a round's rows (a
     * first round over a long history makes tens of millions) go into several files of one commit.
     */
    static final int ROWS_PER_FILE = 500_000;

    /**
     * Appends the rows with the progress in one commit; the table must be at {@code basedOn}. The rows are taken as
     * they come, a file at a time, never all held, and write their own columns into the file ({@link OfflineRows}).
     */
    static void append(DeltaTable table, long basedOn, FeatureViewSpec spec, Iterator<FinalWindows.Row> rows,
            Progress progress, boolean first) {
        Schema schema = schema(spec);
        List<DataFile> files = new ArrayList<>();
        while (rows.hasNext()) {
            files.add(table.writeRows(new OfflineRows(schema, spec.entityNames().size(), rows, ROWS_PER_FILE)));
        }
        // Delta keeps a domain until it is removed: the first append's marks the table for good.
        table.commitExclusive(basedOn, files, first
                ? Map.of(DOMAIN, progress.json(), ROWS_DOMAIN, ROLLING_CHANGES) : Map.of(DOMAIN, progress.json()));
    }

    /**
     * At most {@code limit} rows of {@code rows} as one data file's, each row's columns written straight into the
     * Parquet writer: the same file as {@link #row}'s records through parquet-avro, whose walk of every record was
     * the largest part of a first round's time.
     */
    static final class OfflineRows implements RowSource {
        private final Schema schema;
        private final int entities;
        private final Iterator<FinalWindows.Row> rows;
        private int left;
        private boolean started;
        private FinalWindows.Row row;

        OfflineRows(Schema schema, int entities, Iterator<FinalWindows.Row> rows, int limit) {
            this.schema = schema;
            this.entities = entities;
            this.rows = rows;
            this.left = limit;
        }

        @Override
        public Schema rowSchema() {
            return schema;
        }

        /** Rows are taken from a stream once: only a file not yet begun can start over. */
        @Override
        public void rewind() {
            if (started) {
                throw new IllegalStateException("the offline rows of a file cannot be read twice");
            }
        }

        @Override
        public boolean next() {
            started = true;
            if (left <= 0 || !rows.hasNext()) {
                row = null;
                return false;
            }
            left--;
            row = rows.next();
            return true;
        }

        @Override
        public void emit(RowFields out) {
            List<Object> entity = row.entity();
            for (int i = 0; i < entities; i++) {
                Object v = entity.get(i);
                if (v instanceof String s) {
                    out.repeatedString(i, s);
                } else {
                    out.longValue(i, ((Number) v).longValue());
                }
            }
            out.longValue(entities, row.start() * 1000);
            out.longValue(entities + 1, row.end() * 1000);
            Object[] values = row.values();
            for (int f = 0; f < values.length; f++) {
                if (values[f] != null) {
                    out.value(entities + 2 + f, values[f]);
                }
            }
        }
    }

    static Schema schema(FeatureViewSpec spec) {
        SchemaBuilder.FieldAssembler<Schema> fields = SchemaBuilder.record("tributary_feature_row").fields();
        for (int i = 0; i < spec.entityNames().size(); i++) {
            Schema t = spec.entityTypes().get(i).equals("string") ? Schema.create(Schema.Type.STRING)
                    : Schema.create(Schema.Type.LONG);
            fields = fields.name(spec.entityNames().get(i)).type(t).noDefault();
        }
        Schema micros = LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
        fields = fields.name("window_start").type(micros).noDefault();
        fields = fields.name("window_end").type(micros).noDefault();
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

    /** One offline row: the entity's values as the record held them, the window, each feature's value or null. */
    static GenericRecord row(Schema schema, FeatureViewSpec spec, List<Object> entity, long start, long end,
            Object[] values) {
        GenericRecord r = new GenericData.Record(schema);
        for (int i = 0; i < entity.size(); i++) {
            Object v = entity.get(i);
            r.put(spec.entityNames().get(i), v instanceof Number n ? (Object) n.longValue() : v);
        }
        r.put("window_start", start * 1000);
        r.put("window_end", end * 1000);
        for (int f = 0; f < values.length; f++) {
            r.put(spec.features().get(f).name(), values[f]);
        }
        return r;
    }
}
