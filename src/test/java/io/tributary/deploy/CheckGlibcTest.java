package io.tributary.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * .ci/check-glibc, the native workflow's guard against a bootstrap linked against a newer glibc than Lambda's
 * provided.al2023 (2.34), run against this machine's own /bin/ls: a limit below what it needs fails, one above passes,
 * and what is not an ELF binary is an error rather than a pass.
 */
class CheckGlibcTest {
    private static final Path REPO = Path.of(System.getProperty("user.dir"));
    private static final Path SCRIPT = REPO.resolve(".ci/check-glibc");
    private static final Path LS = Path.of("/bin/ls");

    @BeforeAll
    static void tools() {
        assumeTrue(Files.isExecutable(LS) && onPath("objdump"), "needs /bin/ls and objdump (binutils)");
    }

    @Test
    void aBinaryNeedingANewerGlibcThanTheLimitFails() throws Exception {
        Result r = run(LS.toString(), "2.0");
        assertThat(r.code).isEqualTo(1);
        assertThat(r.output).contains("FAIL").contains("newer than the limit 2.0").containsPattern("GLIBC_2\\.\\d+ +\\S+");
    }

    @Test
    void aBinaryWithinTheLimitPasses() throws Exception {
        Result r = run(LS.toString(), "99.0");
        assertThat(r.code).as(r.output).isZero();
        assertThat(r.output).contains("OK");
    }

    @Test
    void versionsCompareNumericallyNotAsText() throws Exception {
        // 2.4 < 2.17 < 2.34: a text comparison would let GLIBC_2.17 through a limit of 2.4.
        Result r = run(LS.toString(), "2.4");
        assertThat(r.code).isEqualTo(1);
    }

    @Test
    void somethingThatIsNotAnElfBinaryIsAnError(@TempDir Path dir) throws Exception {
        Path text = Files.writeString(dir.resolve("bootstrap"), "#!/bin/sh\necho hi\n");
        assertThat(run(text.toString()).code).isEqualTo(2);
        assertThat(run(dir.resolve("missing").toString()).code).isEqualTo(2);
    }

    private record Result(int code, String output) {}

    private static Result run(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(SCRIPT.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(p.waitFor(), out);
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
