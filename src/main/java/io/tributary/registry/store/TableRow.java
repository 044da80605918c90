package io.tributary.registry.store;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

@Entity
@Table(name = "registered_tables")
public class TableRow extends PanacheEntityBase {
    public static final String INGESTION = "INGESTION";
    public static final String EXTERNAL = "EXTERNAL";

    @Id
    public String fullName;
    @Column(columnDefinition = "text")
    public String storageLocation;
    public String kind;
    public String owner;
    public Instant createdAt;
}
