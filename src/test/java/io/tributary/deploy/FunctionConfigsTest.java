package io.tributary.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * function-configs/ is read by two parsers: java.util.Properties (Maven) and a few string functions (Terraform,
 * terraform/functions.tf). This keeps the files in the subset both read alike, and keeps pom.xml's per-function
 * profiles in step with them.
 */
class FunctionConfigsTest {

    private static final Path REPO = Path.of(System.getProperty("user.dir"));
    private static final Set<String> TRIGGERS = Set.of("http-api", "kafka", "schedule");
    private static final List<String> REQUIRED = List.of("function.description", "function.source-root",
            "function.test-root", "function.extension", "function.handler", "function.memory-mb",
            "function.timeout-seconds", "function.trigger");

    @Test
    void configsUseOnlyPlainKeyValueLines() throws Exception {
        Set<String> functions = FunctionConfigs.names(REPO);
        assertThat(functions).contains("stream-api", "ingest", "backfill");
        for (String function : functions) {
            List<String> lines = Files.readAllLines(FunctionConfigs.file(REPO, function));
            Set<String> keys = new HashSet<>();
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                String where = function + "/function.properties line " + (i + 1);
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                // Terraform splits at the first '=' and trims; Properties does the same for exactly this shape.
                assertThat(line).as(where).matches("[A-Za-z0-9._-]+=[^\\\\]*").doesNotEndWith("\\");
                assertThat(keys.add(line.substring(0, line.indexOf('=')))).as(where + ": duplicate key").isTrue();
            }
            assertThat(keys).as(function).containsAll(REQUIRED);
        }
    }

    @Test
    void configsHoldValidSettings() throws Exception {
        for (String function : FunctionConfigs.names(REPO)) {
            Properties p = FunctionConfigs.load(REPO, function);
            assertThat(Integer.parseInt(p.getProperty("function.memory-mb"))).as(function).isBetween(128, 10240);
            assertThat(Integer.parseInt(p.getProperty("function.timeout-seconds"))).as(function).isBetween(1, 900);
            assertThat(TRIGGERS).as(function + " function.trigger").contains(p.getProperty("function.trigger"));
            assertThat(p.getProperty("function.extension")).as(function)
                    .isIn("quarkus-amazon-lambda", "quarkus-amazon-lambda-http");
            Path sourceRoot = REPO.resolve(p.getProperty("function.source-root"));
            try (Stream<Path> sources = Files.walk(sourceRoot)) {
                assertThat(sources.anyMatch(f -> f.toString().endsWith(".java"))).as(sourceRoot + " has sources").isTrue();
            }
            for (String key : p.stringPropertyNames()) {
                if (key.startsWith("function.env.")) {
                    assertThat(key.substring("function.env.".length())).as(function + " " + key)
                            .matches("[A-Z_][A-Z0-9_]*");
                }
            }
        }
        Properties backfill = FunctionConfigs.load(REPO, "backfill");
        assertThat(backfill.getProperty("function.trigger.input"))
                .contains("\"source\":\"tributary.scheduler\"").contains("\"detail-type\"");
        assertThat(FunctionConfigs.load(REPO, "stream-api").getProperty("function.trigger.routes")).isNotBlank();
        assertThat(FunctionConfigs.load(REPO, "ingest").getProperty("function.trigger.batch-size")).matches("[0-9]+");
    }

    /**
     * Every setting a function's config gives it ({@code function.env.TRIBUTARY_*}) is read by a configuration of that
     * function's build: src/main, its own source root, src/lambda-common and, where its pom profile adds it,
     * src/lambda-mappings (never src/server, which no function compiles). A setting nothing reads only misleads whoever
     * tunes it: ingest was given TRIBUTARY_INGEST_MAX_BATCH_RECORDS / _BYTES, which only the server's IngestConfig
     * reads; on Lambda the event source mapping bounds a batch (function.trigger.batch-size, 6 MB a payload).
     */
    @Test
    void everySettingAFunctionIsGivenIsReadByItsBuild() throws Exception {
        String pom = Files.readString(REPO.resolve("pom.xml"));
        for (String function : FunctionConfigs.names(REPO)) {
            Properties p = FunctionConfigs.load(REPO, function);
            List<Path> roots = new ArrayList<>(List.of(REPO.resolve("src/main/java"),
                    REPO.resolve(p.getProperty("function.source-root")), REPO.resolve("src/lambda-common/java")));
            if (profileOf(pom, function).contains("src/lambda-mappings/java")) {
                roots.add(REPO.resolve("src/lambda-mappings/java"));
            }
            Set<String> read = new TreeSet<>();
            for (Path root : roots) {
                try (Stream<Path> sources = Files.walk(root)) {
                    for (Path source : sources.filter(f -> f.toString().endsWith(".java")).toList()) {
                        read.addAll(settingsRead(Files.readString(source)));
                    }
                }
            }
            for (String key : p.stringPropertyNames()) {
                String variable = key.substring(key.startsWith("function.env.") ? "function.env.".length() : 0);
                if (key.startsWith("function.env.TRIBUTARY_")) {
                    assertThat(read).as(function + " " + key + ": read by nothing its build compiles")
                            .anyMatch(name -> name.toUpperCase(java.util.Locale.ROOT)
                                    .replaceAll("[^A-Z0-9]", "_").equals(variable));
                }
            }
        }
    }

    /** The pom profile of {@code -Dfunction=<function>}, as text. */
    private static String profileOf(String pom, String function) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<profile>(?:(?!</profile>).)*<value>"
                + java.util.regex.Pattern.quote(function) + "</value>(?:(?!</profile>).)*</profile>",
                java.util.regex.Pattern.DOTALL).matcher(pom);
        assertThat(m.find()).as("pom profile of " + function).isTrue();
        return m.group();
    }

    /** Property names a source reads: its @ConfigProperty names and its @ConfigMapping's prefix plus each method. */
    private static Set<String> settingsRead(String source) {
        Set<String> names = new TreeSet<>();
        java.util.regex.Matcher property = java.util.regex.Pattern.compile("@ConfigProperty\\(name = \"([^\"]+)\"")
                .matcher(source);
        while (property.find()) {
            names.add(property.group(1));
        }
        java.util.regex.Matcher mapping = java.util.regex.Pattern.compile("@ConfigMapping\\(prefix = \"([^\"]+)\"\\)")
                .matcher(source);
        if (mapping.find()) {
            java.util.regex.Matcher method = java.util.regex.Pattern.compile("\\n\\s*[A-Za-z<>, ?]+ ([a-z][A-Za-z0-9]*)\\(\\);")
                    .matcher(source);
            while (method.find()) {
                names.add(mapping.group(1) + "." + method.group(1).replaceAll("([A-Z])", "-$1").toLowerCase(
                        java.util.Locale.ROOT));
            }
        }
        return names;
    }

    @Test
    void pomHasOneProfilePerFunctionAddingItsExtension() throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(REPO.resolve("pom.xml").toFile());
        Map<String, List<String>> dependenciesByFunction = new TreeMap<>();
        String lambdaProfileText = null;
        NodeList profiles = pom.getElementsByTagName("profile");
        for (int i = 0; i < profiles.getLength(); i++) {
            Element profile = (Element) profiles.item(i);
            Element property = first(profile, "property");
            if (property == null || !"function".equals(text(property, "name"))) {
                continue;
            }
            String value = text(property, "value");
            if (value == null) {
                lambdaProfileText = profile.getTextContent();
                continue;
            }
            List<String> artifacts = new ArrayList<>();
            NodeList dependencies = profile.getElementsByTagName("dependency");
            for (int d = 0; d < dependencies.getLength(); d++) {
                artifacts.add(text((Element) dependencies.item(d), "artifactId"));
            }
            dependenciesByFunction.put(value, artifacts);
        }
        assertThat(new TreeSet<>(dependenciesByFunction.keySet())).isEqualTo(FunctionConfigs.names(REPO));
        for (String function : FunctionConfigs.names(REPO)) {
            assertThat(dependenciesByFunction.get(function)).as("pom profile for -Dfunction=" + function)
                    .contains(FunctionConfigs.load(REPO, function).getProperty("function.extension"));
        }
        assertThat(lambdaProfileText).as("the profile every -Dfunction build activates")
                .contains("function-configs/${function}/function.properties")
                .contains("${function.source-root}")
                .contains("${project.basedir}/target/${function}");
    }

    private static Element first(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? null : (Element) nodes.item(0);
    }

    private static String text(Element parent, String tag) {
        Element child = first(parent, tag);
        return child == null ? null : child.getTextContent().strip();
    }
}
