package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.Operation;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Transaction;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentWriteException;
import io.delta.kernel.utils.CloseableIterable;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Kernel 4.4.0 behaviour the position design relies on, checked directly. */
class PositionDomainsTest {
    @TempDir
    Path dir;

    @Test
    void kernelRejectsAConcurrentWriterOfTheSameDomainAndRebasesOthers() {
        KernelTables tables = new KernelTables(new Warehouse(dir.toString(), Optional.empty()), new LocalStorage());
        String location = tables.defaultLocation("c", "s", "domains");
        PartitionKey p0 = new PartitionKey("t", 0);
        PartitionKey p1 = new PartitionKey("t", 1);
        tables.create(location, TestRows.SIMPLE, Map.of(p0, 0L, p1, 0L));
        Engine engine = tables.engine();
        Snapshot base = tables.latest(tables.qualify(location));

        Transaction first = transaction(base, engine, p0, 5, "first");
        Transaction sameDomain = transaction(base, engine, p0, 7, "second");
        Transaction otherDomain = transaction(base, engine, p1, 3, "third");

        assertThat(first.commit(engine, CloseableIterable.emptyIterable()).getVersion()).isEqualTo(1);
        assertThatThrownBy(() -> sameDomain.commit(engine, CloseableIterable.emptyIterable()))
                .isInstanceOf(ConcurrentWriteException.class);
        assertThat(otherDomain.commit(engine, CloseableIterable.emptyIterable()).getVersion()).isEqualTo(2);

        assertThat(PositionDomains.read(tables.latest(tables.qualify(location))))
                .containsExactlyInAnyOrderEntriesOf(Map.of(p0, 5L, p1, 3L));
    }

    private static Transaction transaction(Snapshot base, Engine engine, PartitionKey p, long next, String id) {
        Transaction txn = base.buildUpdateTableTransaction(KernelTables.ENGINE_INFO, Operation.WRITE).build(engine);
        txn.addDomainMetadata(PositionDomains.domain(p), PositionDomains.config(p, next, id, 0));
        return txn;
    }
}
