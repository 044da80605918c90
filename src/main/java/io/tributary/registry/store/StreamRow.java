package io.tributary.registry.store;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

@Entity
@Table(name = "streams")
public class StreamRow extends PanacheEntityBase {
    @Id
    public String id;
    public String fullName;
    public String catalogName;
    public String schemaName;
    /** The stream as created (normalized names), as JSON. */
    @Column(columnDefinition = "text")
    public String definition;
    public String tableName;
    public String connectionName;
    public String createdBy;
    public Instant createdAt;
    public String backfillState;
    public Instant backfillMaxTimestamp;
    public Instant ingestionMinTimestamp;
    @Column(name = "backfill_forced")
    public boolean forced;
    public Long rowsMerged;
    public Instant completedAt;
}
