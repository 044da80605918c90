package io.tributary.registry.store;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "grants")
public class GrantRow extends PanacheEntityBase {
    public static final String TABLE = "TABLE";
    public static final String CONNECTION = "CONNECTION";

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;
    public String securableType;
    public String securableName;
    public String principal;
    public String privilege;
}
