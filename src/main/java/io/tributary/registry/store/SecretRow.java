package io.tributary.registry.store;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

@Entity
@Table(name = "secrets")
public class SecretRow extends PanacheEntityBase {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;
    public String scope;
    @Column(name = "secret_key")
    public String key;
    /** AES-GCM ciphertext; see SecretCipher. */
    public byte[] value;
    public Instant updatedAt;

    public static String associatedData(String scope, String key) {
        return "secret:" + scope + "/" + key;
    }

    @Override
    public String toString() {
        return "SecretRow[" + scope + "/" + key + "]";
    }
}
