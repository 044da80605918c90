package io.tributary.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;

/** The Terraform in terraform/ parsed once per test class, and the lookups its tests share. */
abstract class TerraformParsed {

    static final Path REPO = Path.of(System.getProperty("user.dir"));
    static final Path TERRAFORM = REPO.resolve("terraform");
    static final Pattern FUNCTION_REFERENCE = Pattern.compile(
            "(?:module\\.function|local\\.functions|local\\.function_arns|local\\.function_names_by_config)"
                    + "\\[\\\\?\"([^\"\\\\]+)\\\\?\"]");

    static HclJson hcl;
    static TerraformModel model;

    @BeforeAll
    static void parse() throws Exception {
        assertThat(TERRAFORM).as("run from the repository root").isDirectory();
        hcl = HclJson.install(TERRAFORM.resolve("test"), REPO.resolve("target/hcl2json"));
        model = new TerraformModel(hcl.parseTree(TERRAFORM));
    }

    static boolean refersTo(JsonNode value, String dir, String function) {
        Matcher m = FUNCTION_REFERENCE.matcher(model.resolve(value, dir));
        while (m.find()) {
            if (m.group(1).equals(function)) {
                return true;
            }
        }
        return false;
    }

    static Set<String> functionsUsingPolicy(String document) {
        JsonNode policies = model.local("", "function_policies");
        Set<String> users = new TreeSet<>();
        policies.fields().forEachRemaining(e -> {
            if (e.getValue().asText().equals("${data.aws_iam_policy_document." + document + ".json}")) {
                users.add(e.getKey());
            }
        });
        return users;
    }

    static String reference(String expression, String prefix, String suffix) {
        assertThat(expression).startsWith("${" + prefix).endsWith(suffix + "}");
        return expression.substring(2 + prefix.length(), expression.length() - suffix.length() - 1);
    }

    static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        if (array != null) {
            array.forEach(n -> texts.add(n.asText()));
        }
        return texts;
    }

    static List<TerraformModel.Block> inModule(List<TerraformModel.Block> blocks, String dir) {
        return blocks.stream().filter(b -> b.dir().equals(dir)).toList();
    }

    static TerraformModel.Block single(
            List<TerraformModel.Block> blocks, java.util.function.Predicate<TerraformModel.Block> which) {
        List<TerraformModel.Block> matching = blocks.stream().filter(which).toList();
        assertThat(matching).as("matching blocks among " + blocks.stream().map(TerraformModel.Block::address)
                .collect(Collectors.joining(", "))).hasSize(1);
        return matching.get(0);
    }
}
