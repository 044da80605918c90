package io.tributary.schema;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * Avro schema to column type and reading plan (SPEC 4.1): null-unions -> nullable; primitives as usual; fixed ->
 * BINARY; enum -> STRING; record -> STRUCT; array; map -> MAP&lt;STRING,..&gt;; date -> DATE;
 * timestamp-millis/-micros/-nanos -> TIMESTAMP (µs); local-timestamp-* -> TIMESTAMP_NTZ; decimal(p,s) -> DECIMAL(p,s);
 * a union of several non-null types -> STRUCT with one nullable field per member, named after the member record (or
 * after the type for a non-record member, e.g. {@code string}). time-millis/-micros stay INT/LONG (Delta has no TIME).
 * Recursive records, empty records and decimals wider than 38 digits have no Delta column and are rejected.
 */
final class AvroTypeMapper {
    record Mapped(Schema type, AvroValueReader reader) {}

    private final String field;
    private final RecordNames names;
    private final Set<String> recordsInProgress = new HashSet<>();

    AvroTypeMapper(String field, RecordNames names) {
        this.field = field;
        this.names = names;
    }

    Mapped map(Schema schema) {
        return map(schema, "");
    }

    private Mapped map(Schema s, String path) {
        LogicalType logical = s.getLogicalType();
        switch (s.getType()) {
            case NULL:
                // A field that can only be null: kept as an always-NULL STRING column (Parquet has no null type).
                return new Mapped(ColumnTypes.nullable(ColumnTypes.string()), AvroValueReader.NULL);
            case BOOLEAN:
                return new Mapped(Schema.create(Schema.Type.BOOLEAN), AvroValueReader.BOOLEAN);
            case INT:
                if (logical instanceof LogicalTypes.Date) {
                    return new Mapped(ColumnTypes.date(), AvroValueReader.INT);
                }
                return new Mapped(Schema.create(Schema.Type.INT), AvroValueReader.INT);
            case LONG:
                return mapLong(logical);
            case FLOAT:
                return new Mapped(Schema.create(Schema.Type.FLOAT), AvroValueReader.FLOAT);
            case DOUBLE:
                return new Mapped(Schema.create(Schema.Type.DOUBLE), AvroValueReader.DOUBLE);
            case STRING:
                return new Mapped(ColumnTypes.string(), AvroValueReader.STRING);
            case BYTES:
                if (logical instanceof LogicalTypes.Decimal d) {
                    return new Mapped(decimal(d, path), AvroValueReader.decimalBytes(d.getScale()));
                }
                return new Mapped(Schema.create(Schema.Type.BYTES), AvroValueReader.BYTES);
            case FIXED:
                if (logical instanceof LogicalTypes.Decimal d) {
                    return new Mapped(decimal(d, path), AvroValueReader.decimalFixed(s.getFixedSize(), d.getScale()));
                }
                return new Mapped(Schema.create(Schema.Type.BYTES), AvroValueReader.fixed(s.getFixedSize()));
            case ENUM:
                return new Mapped(ColumnTypes.string(), AvroValueReader.enumSymbols(s.getEnumSymbols()));
            case ARRAY: {
                Mapped items = map(s.getElementType(), path);
                return new Mapped(Schema.createArray(items.type), AvroValueReader.array(items.reader));
            }
            case MAP: {
                Mapped values = map(s.getValueType(), path);
                return new Mapped(Schema.createMap(values.type), AvroValueReader.map(values.reader));
            }
            case RECORD:
                return mapRecord(s, path);
            case UNION:
                return mapUnion(s, path);
            default:
                throw new InvalidSchemaException(field, "type " + s.getType() + " at " + where(path)
                        + " has no column type");
        }
    }

    private static Mapped mapLong(LogicalType logical) {
        if (logical instanceof LogicalTypes.TimestampMillis) {
            return new Mapped(ColumnTypes.timestamp(), AvroValueReader.MILLIS_TO_MICROS);
        }
        if (logical instanceof LogicalTypes.TimestampMicros) {
            return new Mapped(ColumnTypes.timestamp(), AvroValueReader.LONG);
        }
        if (logical instanceof LogicalTypes.TimestampNanos) {
            return new Mapped(ColumnTypes.timestamp(), AvroValueReader.NANOS_TO_MICROS);
        }
        if (logical instanceof LogicalTypes.LocalTimestampMillis) {
            return new Mapped(ColumnTypes.timestampNtz(), AvroValueReader.MILLIS_TO_MICROS);
        }
        if (logical instanceof LogicalTypes.LocalTimestampMicros) {
            return new Mapped(ColumnTypes.timestampNtz(), AvroValueReader.LONG);
        }
        if (logical instanceof LogicalTypes.LocalTimestampNanos) {
            return new Mapped(ColumnTypes.timestampNtz(), AvroValueReader.NANOS_TO_MICROS);
        }
        return new Mapped(Schema.create(Schema.Type.LONG), AvroValueReader.LONG);
    }

    private Schema decimal(LogicalTypes.Decimal d, String path) {
        if (d.getPrecision() > ColumnTypes.MAX_DECIMAL_PRECISION) {
            throw new InvalidSchemaException(field, "decimal(" + d.getPrecision() + "," + d.getScale() + ") at "
                    + where(path) + " is wider than Delta's largest DECIMAL(38,s); lower the precision to 38 or"
                    + " less, or use a string");
        }
        return ColumnTypes.decimal(d.getPrecision(), d.getScale());
    }

    private Mapped mapRecord(Schema s, String path) {
        if (!recordsInProgress.add(s.getFullName())) {
            throw new InvalidSchemaException(field, "record " + s.getFullName() + " is recursive (it contains itself"
                    + " at " + where(path) + "); a Delta column cannot nest without end, so break the cycle, e.g. by"
                    + " holding the nested part as a string or bytes");
        }
        if (s.getFields().isEmpty()) {
            throw new InvalidSchemaException(field, "record " + s.getFullName() + " at " + where(path) + " has no"
                    + " fields; Delta cannot store an empty struct, so give it at least one field");
        }
        names.columns().add(field, s.getFields().size());
        FieldNames columns = new FieldNames(field, path);
        List<Schema.Field> fields = new ArrayList<>();
        AvroValueReader[] readers = new AvroValueReader[s.getFields().size()];
        for (Schema.Field f : s.getFields()) {
            String column = columns.add(f.name(), "fields");
            Mapped child = map(f.schema(), path.isEmpty() ? column : path + "." + column);
            fields.add(ColumnTypes.field(column, child.type));
            readers[f.pos()] = child.reader;
        }
        recordsInProgress.remove(s.getFullName());
        Schema column = ColumnTypes.record(names.next(path), fields);
        return new Mapped(column, AvroValueReader.record(column, readers));
    }

    private Mapped mapUnion(Schema s, String path) {
        List<Schema> branches = s.getTypes();
        int nullIndex = -1;
        List<Integer> members = new ArrayList<>();
        for (int i = 0; i < branches.size(); i++) {
            if (branches.get(i).getType() == Schema.Type.NULL) {
                nullIndex = i;
            } else {
                members.add(i);
            }
        }
        if (members.isEmpty()) {
            return new Mapped(ColumnTypes.nullable(ColumnTypes.string()),
                    AvroValueReader.singleBranch(AvroValueReader.NULL));
        }
        if (members.size() == 1) {
            Mapped only = map(branches.get(members.get(0)), path);
            if (nullIndex < 0) {
                return new Mapped(only.type, AvroValueReader.singleBranch(only.reader));
            }
            return new Mapped(ColumnTypes.nullable(only.type), AvroValueReader.nullable(nullIndex, only.reader));
        }
        names.columns().add(field, members.size());
        FieldNames columns = new FieldNames(field, path);
        List<Schema.Field> fields = new ArrayList<>();
        int[] memberFields = new int[branches.size()];
        AvroValueReader[] readers = new AvroValueReader[branches.size()];
        java.util.Arrays.fill(memberFields, -1);
        for (int i : members) {
            Schema branch = branches.get(i);
            String column = columns.add(memberName(branch), "union members");
            Mapped mapped = map(branch, path.isEmpty() ? column : path + "." + column);
            memberFields[i] = fields.size();
            readers[i] = mapped.reader;
            fields.add(ColumnTypes.field(column, ColumnTypes.nullable(mapped.type)));
        }
        Schema column = ColumnTypes.record(names.next(path), fields);
        Schema type = nullIndex >= 0 ? ColumnTypes.nullable(column) : column;
        return new Mapped(type, AvroValueReader.unionStruct(column, memberFields, readers));
    }

    private static String memberName(Schema branch) {
        return switch (branch.getType()) {
            case RECORD, ENUM, FIXED -> branch.getName();
            default -> branch.getType().getName();
        };
    }

    private static String where(String path) {
        return path.isEmpty() ? "the top level" : "`" + path + "`";
    }
}
