package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MemoryOutputFileTest {

    @Test
    void aFileLargerThanItsMemoryPartSpillsToTheLocalDiskAndReadsBackWholeUntilClosed() throws Exception {
        byte[] data = new byte[3_000_000];
        new Random(7).nextBytes(data);
        MemoryOutputFile file = new MemoryOutputFile("f.parquet", 1024, 1_000_000);
        try (OutputStream out = file.create(0)) {
            out.write(data, 0, 10);
            out.write(data[10]);
            out.write(data, 11, data.length - 11);
        }
        assertThat(file.size()).isEqualTo(data.length);
        assertThat(file.spilled()).isTrue();
        assertThat(file.bytes()).isEqualTo(data);
        try (InputStream in = file.open()) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        file.writeTo(copy);
        assertThat(copy.toByteArray()).isEqualTo(data);
        file.close();
        assertThat(file.spilled()).isFalse();
    }

    @Test
    void aSmallFileStaysInMemory() throws Exception {
        MemoryOutputFile file = new MemoryOutputFile("f.parquet", 16, 1_000_000);
        try (OutputStream out = file.create(0)) {
            for (int i = 0; i < 200_000; i++) {
                out.write(i);
            }
        }
        assertThat(file.spilled()).isFalse();
        byte[] bytes = file.bytes();
        assertThat(bytes).hasSize(200_000);
        assertThat(bytes[199_999]).isEqualTo((byte) 199_999);
    }
}
