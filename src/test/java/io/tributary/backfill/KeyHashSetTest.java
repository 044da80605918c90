package io.tributary.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyHashSetTest {
    @Test
    void behavesLikeASetThroughGrowth() {
        KeyHashSet set = new KeyHashSet(10);
        Set<List<Long>> reference = new HashSet<>();
        Random random = new Random(7);
        for (int i = 0; i < 200_000; i++) {
            // Few distinct high halves and a narrow low range force long probe chains and repeats.
            long hi = random.nextInt(4);
            long lo = random.nextInt(150_000);
            assertThat(set.add(hi, lo)).isEqualTo(reference.add(List.of(hi, lo)));
        }
        assertThat(set.size()).isEqualTo(reference.size());
        for (int i = 0; i < 10_000; i++) {
            long hi = random.nextInt(5);
            long lo = random.nextInt(200_000);
            assertThat(set.contains(hi, lo)).isEqualTo(reference.contains(List.of(hi, lo)));
        }
    }

    @Test
    void theAllZeroHashIsAKeyLikeAnyOther() {
        KeyHashSet set = new KeyHashSet(4);
        assertThat(set.contains(0, 0)).isFalse();
        assertThat(set.add(0, 0)).isTrue();
        assertThat(set.contains(0, 0)).isTrue();
        assertThat(set.add(0, 0)).isFalse();
    }

    @Test
    void sixteenBytesASlot() {
        assertThat(KeyHashSet.bytesFor(10_000_000)).isEqualTo(16L * (1 << 24));
    }
}
