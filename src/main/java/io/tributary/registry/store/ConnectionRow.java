package io.tributary.registry.store;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

@Entity
@Table(name = "connections")
public class ConnectionRow extends PanacheEntityBase {
    @Id
    public String name;
    public String connectionType;
    /** The options as JSON, without the password. */
    @Column(columnDefinition = "text")
    public String options;
    /** AES-GCM ciphertext of the password, or null. */
    public byte[] password;
    public String owner;
    public Instant createdAt;

    public static String associatedData(String name) {
        return "connection:" + name;
    }

    @Override
    public String toString() {
        return "ConnectionRow[" + name + "]";
    }
}
