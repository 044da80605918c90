package io.tributary.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.tributary.delta.kernel.KernelActions;
import io.tributary.delta.kernel.KernelIterators;
import io.tributary.delta.kernel.Snapshots;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.util.List;
import java.util.Optional;

/**
 * Adds nullable columns (or nullable fields of nested structs) to a table's schema in a commit of its own. Kernel's
 * public {@code withUpdatedSchema} refuses tables without column mapping, and ours have none (data files carry the
 * logical names), so the new metaData action is written through Kernel's internal action classes and its JSON handler's
 * put-if-absent, exactly as Kernel writes its own commits. Files written before keep their columns; every Delta reader
 * reads the added ones as NULL there. A concurrent append that read the old schema fails Kernel's conflict check
 * (metadata changed) and is retried by {@link PositionCommit#commit} against the new snapshot.
 */
final class SchemaEvolution {
    private static final int ATTEMPTS = 20;

    private final KernelTables tables;
    private final String path;

    SchemaEvolution(KernelTables tables, String path) {
        this.tables = tables;
        this.path = path;
    }

    /** @return the version of the schema change, or empty when the table already had exactly this schema */
    Optional<Long> evolve(StructType proposed) {
        Engine engine = tables.engine();
        for (int attempt = 1; ; attempt++) {
            Snapshot snapshot = tables.latest(path);
            StructType current = snapshot.getSchema();
            if (current.equals(proposed)) {
                return Optional.empty();
            }
            Optional<String> problem = additions("", current, proposed);
            if (problem.isPresent()) {
                throw new IllegalArgumentException("the schema of " + path + " can only gain nullable columns: "
                        + problem.get());
            }
            if (!addsAny(current, proposed)) {
                // Same columns in the same order, differing only in field metadata: nothing to commit.
                return Optional.empty();
            }
            if (Snapshots.isPartitioned(snapshot)) {
                throw new IllegalArgumentException("the schema of the partitioned table " + path + " is not evolved");
            }
            long version = snapshot.getVersion() + 1;
            long now = System.currentTimeMillis();
            List<Row> actions = KernelActions.schemaChange(snapshot, proposed, KernelTables.ENGINE_INFO, now);
            try {
                engine.getJsonHandler().writeJsonFileAtomically(
                        Snapshots.commitFile(snapshot, version), KernelIterators.of(actions.iterator()), false);
                return Optional.of(version);
            } catch (FileAlreadyExistsException e) {
                // Another writer committed this version first (perhaps the same change): look again.
                if (attempt >= ATTEMPTS) {
                    throw new UncheckedIOException("the schema of " + path + " could not be changed: " + ATTEMPTS
                            + " concurrent commits won in a row", e);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("changing the schema of " + path + " failed", e);
            }
        }
    }

    /** Empty when {@code proposed} is {@code current} plus nullable fields (at any depth), else what is not. */
    static Optional<String> additions(String at, StructType current, StructType proposed) {
        for (StructField old : current.fields()) {
            String name = at.isEmpty() ? old.getName() : at + "." + old.getName();
            StructField now = proposed.indexOf(old.getName()) < 0 ? null : proposed.get(old.getName());
            if (now == null) {
                return Optional.of("column `" + name + "` would be dropped");
            }
            if (now.isNullable() != old.isNullable()) {
                return Optional.of("column `" + name + "` would change its nullability");
            }
            Optional<String> inner = sameOrWider(name, old.getDataType(), now.getDataType());
            if (inner.isPresent()) {
                return inner;
            }
        }
        for (StructField added : proposed.fields()) {
            if (current.indexOf(added.getName()) < 0 && !added.isNullable()) {
                return Optional.of("the added column `" + (at.isEmpty() ? "" : at + ".") + added.getName()
                        + "` is not nullable");
            }
        }
        return Optional.empty();
    }

    /** Whether {@code proposed} (known to keep every column of {@code current}) adds or reorders any field. */
    static boolean addsAny(DataType current, DataType proposed) {
        if (current instanceof StructType c && proposed instanceof StructType p) {
            if (p.fields().size() != c.fields().size()) {
                return true;
            }
            for (int i = 0; i < c.fields().size(); i++) {
                StructField f = c.fields().get(i);
                // A new order is a change too: rows are written in the order of the table's schema.
                if (!f.getName().equals(p.fields().get(i).getName())
                        || addsAny(f.getDataType(), p.get(f.getName()).getDataType())) {
                    return true;
                }
            }
            return false;
        }
        if (current instanceof ArrayType c && proposed instanceof ArrayType p) {
            return addsAny(c.getElementType(), p.getElementType());
        }
        if (current instanceof MapType c && proposed instanceof MapType p) {
            return addsAny(c.getValueType(), p.getValueType());
        }
        return false;
    }

    private static Optional<String> sameOrWider(String name, DataType old, DataType now) {
        if (old instanceof StructType o && now instanceof StructType n) {
            return additions(name, o, n);
        }
        if (old instanceof ArrayType o && now instanceof ArrayType n && o.containsNull() == n.containsNull()) {
            return sameOrWider(name + ".element", o.getElementType(), n.getElementType());
        }
        if (old instanceof MapType o && now instanceof MapType n && o.isValueContainsNull() == n.isValueContainsNull()
                && o.getKeyType().equivalent(n.getKeyType())) {
            return sameOrWider(name + ".value", o.getValueType(), n.getValueType());
        }
        return old.equivalent(now) ? Optional.empty()
                : Optional.of("column `" + name + "` would change its type from " + SchemaMapping.sqlType(old)
                        + " to " + SchemaMapping.sqlType(now));
    }
}
