package io.tributary.deploy;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Parses Terraform with HashiCorp's HCL parser: terraform/test/hcl2json.js on node, with @cdktf/hcl2json installed
 * by {@code npm ci} into target/hcl2json on first use. Without node or npm the calling test is skipped, saying so.
 */
final class HclJson {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] TOOL_FILES = {"package.json", "package-lock.json", "hcl2json.js"};

    private final Path tool;

    private HclJson(Path tool) {
        this.tool = tool;
    }

    /** Installs the parser under {@code workDir} unless it is there already. */
    static HclJson install(Path sources, Path workDir) throws IOException, InterruptedException {
        assumeTrue(available("node"), "node is not on the PATH: Terraform parsing tests skipped (install Node.js 18+)");
        Files.createDirectories(workDir);
        for (String file : TOOL_FILES) {
            Files.copy(sources.resolve(file), workDir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        if (!Files.exists(workDir.resolve("node_modules/@cdktf/hcl2json/package.json"))) {
            assumeTrue(available("npm"), "npm is not on the PATH: cannot install @cdktf/hcl2json, tests skipped");
            Result npm = run(workDir, 300, "npm", "ci", "--no-audit", "--no-fund");
            if (npm.exitCode != 0) {
                throw new IllegalStateException("npm ci in " + workDir + " failed (" + npm.exitCode + "):\n"
                        + npm.output + npm.errors);
            }
        }
        return new HclJson(workDir.resolve("hcl2json.js"));
    }

    /** Every *.tf file under {@code dir}, keyed by its path relative to it, as HCL JSON. */
    JsonNode parseTree(Path dir) throws IOException, InterruptedException {
        Result result = run(tool.getParent(), 120, "node", tool.toString(), dir.toAbsolutePath().toString());
        if (result.exitCode != 0) {
            throw new AssertionError("HCL did not parse:\n" + result.errors);
        }
        return JSON.readTree(result.output);
    }

    static boolean available(String command) {
        try {
            return run(Path.of("."), 30, command, "--version").exitCode == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    record Result(int exitCode, String output, String errors) {}

    static Result run(Path dir, long timeoutSeconds, String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(command));
        Path errors = Files.createTempFile("hcl2json", ".err");
        try {
            Process process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectError(errors.toFile()).start();
            // Read before waiting: a parse of the whole tree is larger than a pipe buffer.
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + " did not finish in " + timeoutSeconds + " s");
            }
            return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8), Files.readString(errors));
        } finally {
            Files.deleteIfExists(errors);
        }
    }
}
