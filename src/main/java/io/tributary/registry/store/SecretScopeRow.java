package io.tributary.registry.store;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

@Entity
@Table(name = "secret_scopes")
public class SecretScopeRow extends PanacheEntityBase {
    @Id
    public String name;
    public String owner;
    public Instant createdAt;
}
