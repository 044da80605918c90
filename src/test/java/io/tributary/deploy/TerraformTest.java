package io.tributary.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Terraform in terraform/, parsed with HashiCorp's HCL parser, deploys every function of function-configs/ with
 * its trigger and grants nothing by wildcard. {@code terraform fmt -check} runs here too when terraform is on the
 * PATH; {@code init} and {@code validate} need the providers and run in .github/workflows/terraform.yml.
 */
class TerraformTest {

    private static final Path REPO = Path.of(System.getProperty("user.dir"));
    private static final Path TERRAFORM = REPO.resolve("terraform");
    private static final Set<String> ALLOWED_MANAGED_POLICIES = Set.of(
            "service-role/AWSLambdaVPCAccessExecutionRole", "service-role/AWSLambdaMSKExecutionRole");
    private static final Pattern MANAGED_POLICY = Pattern.compile(":iam::aws:policy/([A-Za-z0-9/_-]+)");
    private static final Pattern FUNCTION_REFERENCE = Pattern.compile(
            "(?:module\\.function|local\\.functions|local\\.function_arns|local\\.function_names_by_config)"
                    + "\\[\\\\?\"([^\"\\\\]+)\\\\?\"]");

    private static HclJson hcl;
    private static TerraformModel model;

    @BeforeAll
    static void parse() throws Exception {
        assertThat(TERRAFORM).as("run from the repository root").isDirectory();
        hcl = HclJson.install(TERRAFORM.resolve("test"), REPO.resolve("target/hcl2json"));
        model = new TerraformModel(hcl.parseTree(TERRAFORM));
    }

    @Test
    void deploysEveryFunctionConfigThroughOneModuleReadingFunctionConfigs() throws IOException {
        TerraformModel.Block module = single(model.blocks("module", ""), b -> b.name().equals("function"));
        assertThat(module.body().path("source").asText()).isEqualTo("./modules/function");
        assertThat(module.body().path("for_each").asText()).isEqualTo("${local.functions}");
        assertThat(model.resolve(module.body().get("handler"), "")).contains("each.value.handler");
        assertThat(model.resolve(module.body().get("memory_mb"), "")).contains("each.value.memory_mb");
        assertThat(model.resolve(module.body().get("timeout_seconds"), "")).contains("each.value.timeout_seconds");
        assertThat(model.resolve(module.body().get("environment"), "")).contains("each.value.environment");
        assertThat(TerraformModel.text(model.local("", "function_config_dir"))).endsWith("/../function-configs");
        assertThat(TerraformModel.text(model.local("", "function_properties"))).contains("function.properties");

        Set<String> functions = FunctionConfigs.names(REPO);
        for (String perFunction : List.of("function_policies", "function_managed_policies", "extra_environment")) {
            Set<String> keys = new TreeSet<>();
            model.local("", perFunction).fieldNames().forEachRemaining(keys::add);
            assertThat(keys).as("keys of local." + perFunction).isEqualTo(functions);
        }
        Set<String> referenced = new TreeSet<>();
        Matcher m = FUNCTION_REFERENCE.matcher(model.allText());
        while (m.find()) {
            referenced.add(m.group(1));
        }
        assertThat(functions).as("functions the Terraform refers to by name").containsAll(referenced);
    }

    @Test
    void everyFunctionIsDeployedWithItsTrigger() throws IOException {
        Set<String> functions = FunctionConfigs.names(REPO);
        assertThat(functions).isNotEmpty();
        for (String function : functions) {
            String trigger = FunctionConfigs.load(REPO, function).getProperty("function.trigger");
            switch (trigger) {
                case "http-api" -> assertHttpApiRoute(function);
                case "kafka" -> assertEventSourceMappingPermission(function);
                case "schedule" -> assertSchedule(function);
                default -> throw new AssertionError(function + ": unknown function.trigger '" + trigger + "'");
            }
        }
    }

    private static void assertHttpApiRoute(String function) {
        TerraformModel.Block api = single(model.blocks("module", ""),
                b -> b.body().path("source").asText().equals("./modules/http_api")
                        && refersTo(b.body().get("function_invoke_arn"), "", function));
        assertThat(refersTo(api.body().get("function_name"), "", function)).as(api.address()).isTrue();
        assertThat(model.resolve(api.body().get("route_keys"), ""))
                .contains("local.functions[\"" + function + "\"]").contains("function.trigger.routes");

        String dir = "modules/http_api";
        TerraformModel.Block integration = single(inModule(model.blocks("resource", "aws_apigatewayv2_integration"), dir),
                b -> b.body().path("integration_uri").asText().equals("${var.function_invoke_arn}"));
        assertThat(integration.body().path("integration_type").asText()).isEqualTo("AWS_PROXY");
        TerraformModel.Block route = single(inModule(model.blocks("resource", "aws_apigatewayv2_route"), dir),
                b -> b.body().path("target").asText().contains("aws_apigatewayv2_integration." + integration.name()));
        assertThat(route.body().path("route_key").asText()).isEqualTo("${each.value}");
        assertThat(route.body().path("for_each").asText()).contains("var.route_keys");
        assertThat(route.body().path("authorization_type").asText()).isEqualTo("JWT");
        TerraformModel.Block authorizer = single(inModule(model.blocks("resource", "aws_apigatewayv2_authorizer"), dir),
                b -> route.body().path("authorizer_id").asText().contains("aws_apigatewayv2_authorizer." + b.name()));
        assertThat(authorizer.body().path("authorizer_type").asText()).isEqualTo("JWT");
        TerraformModel.Block permission = single(inModule(model.blocks("resource", "aws_lambda_permission"), dir),
                b -> b.body().path("principal").asText().equals("apigateway.amazonaws.com"));
        assertThat(permission.body().path("function_name").asText()).isEqualTo("${var.function_name}");
        assertThat(permission.body().path("source_arn").asText()).contains("aws_apigatewayv2_api.");
        TerraformModel.Block stage = single(inModule(model.blocks("resource", "aws_apigatewayv2_stage"), dir), b -> true);
        assertThat(stage.body().path("access_log_settings").path(0).path("destination_arn").asText())
                .contains("aws_cloudwatch_log_group.");
    }

    private static void assertEventSourceMappingPermission(String function) {
        // stream-api creates the mappings at run time; some function's own policy must allow it, for this function.
        List<IamWildcards.Statement> grants = IamWildcards.statements(model).stream()
                .filter(s -> texts(s.body().get("actions")).contains("lambda:CreateEventSourceMapping"))
                .filter(s -> {
                    for (JsonNode condition : s.body().path("condition")) {
                        if (condition.path("variable").asText().equals("lambda:FunctionArn")
                                && refersTo(condition.get("values"), s.document().dir(), function)) {
                            return true;
                        }
                    }
                    return false;
                })
                .toList();
        assertThat(grants).as("a statement allowing lambda:CreateEventSourceMapping for " + function).isNotEmpty();
        for (IamWildcards.Statement grant : grants) {
            assertThat(texts(grant.body().get("actions"))).contains("lambda:DeleteEventSourceMapping");
            assertThat(functionsUsingPolicy(grant.document().name()))
                    .as("functions whose role has policy " + grant.document().name()).isNotEmpty();
        }
        // The mapping polls Kafka with this function's role: network interfaces and the cluster's description.
        assertThat(TerraformModel.text(model.local("", "function_managed_policies").get(function)))
                .contains("AWSLambdaMSKExecutionRole");
    }

    private static void assertSchedule(String function) {
        TerraformModel.Block schedule = single(model.blocks("resource", "aws_scheduler_schedule"),
                b -> refersTo(b.body().path("target").path(0).get("arn"), b.dir(), function));
        assertThat(schedule.body().path("schedule_expression").asText())
                .contains("local.functions[\"" + function + "\"]").contains("function.trigger.schedule");
        JsonNode target = schedule.body().path("target").path(0);
        assertThat(target.path("input").asText())
                .contains("local.functions[\"" + function + "\"]").contains("function.trigger.input");
        String role = reference(target.path("role_arn").asText(), "aws_iam_role.", ".arn");
        List<String> documents = model.blocks("resource", "aws_iam_role_policy").stream()
                .filter(p -> p.body().path("role").asText().equals("${aws_iam_role." + role + ".id}"))
                .map(p -> reference(p.body().path("policy").asText(), "data.aws_iam_policy_document.", ".json"))
                .toList();
        assertThat(IamWildcards.statements(model)).as("the schedule role may invoke " + function)
                .anySatisfy(s -> {
                    assertThat(documents).contains(s.document().name());
                    assertThat(texts(s.body().get("actions"))).containsExactly("lambda:InvokeFunction");
                    assertThat(refersTo(s.body().get("resources"), s.document().dir(), function)).isTrue();
                });
    }

    /**
     * Every function whose build includes the event source mapping code (src/lambda-mappings, added by its pom
     * profile) may create and delete mappings of ingest's stream aliases, and gets every setting IngestMappingSettings
     * requires: today stream-api (create and delete) and backfill (subscribe_pattern refresh).
     */
    @Test
    void functionsThatManageMappingsHaveTheirPermissionsAndSettings() throws Exception {
        Set<String> managing = functionsBuildingMappings();
        assertThat(managing).containsExactlyInAnyOrder("stream-api", "backfill");
        Set<String> required = requiredMappingSettings();
        assertThat(required).contains("TRIBUTARY_AWS_INGEST_FUNCTION_ARN", "TRIBUTARY_AWS_KAFKA_SUBNET_IDS");
        for (String function : managing) {
            String document = reference(model.local("", "function_policies").path(function).asText(),
                    "data.aws_iam_policy_document.", ".json");
            assertThat(IamWildcards.statements(model)).as(function + " may create and delete ingest's mappings")
                    .anySatisfy(s -> {
                        assertThat(s.document().name()).isEqualTo(document);
                        assertThat(texts(s.body().get("actions")))
                                .contains("lambda:CreateEventSourceMapping", "lambda:DeleteEventSourceMapping");
                        assertThat(s.body().path("condition")).anySatisfy(c -> {
                            assertThat(c.path("variable").asText()).isEqualTo("lambda:FunctionArn");
                            assertThat(refersTo(c.get("values"), "", "ingest")).isTrue();
                            assertThat(model.resolve(c.get("values"), "")).contains("stream-");
                        });
                    });
            String environment = model.resolve(model.local("", "extra_environment").get(function), "");
            for (String key : required) {
                assertThat(environment).as("environment of " + function).contains(key);
            }
        }
        assertThat(FunctionConfigs.names(REPO)).containsAll(managing);
    }

    /** Functions whose pom profile adds src/lambda-mappings/java to their sources. */
    private static Set<String> functionsBuildingMappings() throws Exception {
        org.w3c.dom.Document pom = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(REPO.resolve("pom.xml").toFile());
        org.w3c.dom.NodeList profiles = pom.getElementsByTagName("profile");
        Set<String> functions = new TreeSet<>();
        for (int i = 0; i < profiles.getLength(); i++) {
            org.w3c.dom.Element profile = (org.w3c.dom.Element) profiles.item(i);
            org.w3c.dom.NodeList values = profile.getElementsByTagName("value");
            if (values.getLength() > 0 && profile.getTextContent().contains("src/lambda-mappings/java")) {
                functions.add(values.item(0).getTextContent().strip());
            }
        }
        return functions;
    }

    /** TRIBUTARY_AWS_* of each IngestMappingSettings method that has neither a default nor an Optional type. */
    private static Set<String> requiredMappingSettings() throws IOException {
        String source = Files.readString(
                REPO.resolve("src/lambda-mappings/java/io/tributary/lambda/mappings/IngestMappingSettings.java"));
        Matcher m = Pattern.compile("(@WithDefault\\([^)]*\\)\\s*)?\\n\\s*([A-Za-z<>, ]+) ([a-z][A-Za-z]*)\\(\\);")
                .matcher(source);
        Set<String> keys = new TreeSet<>();
        while (m.find()) {
            if (m.group(1) == null && !m.group(2).startsWith("Optional")) {
                keys.add("TRIBUTARY_AWS_" + m.group(3).replaceAll("([A-Z])", "_$1").toUpperCase());
            }
        }
        return keys;
    }

    /** What terraform validate would catch first, checked without the providers it needs. */
    @Test
    void everyReferenceAndModuleArgumentResolves() {
        Pattern var = Pattern.compile("\\bvar\\.([A-Za-z_][A-Za-z0-9_-]*)");
        Pattern local = Pattern.compile("\\blocal\\.([A-Za-z_][A-Za-z0-9_-]*)");
        Pattern moduleOutput = Pattern.compile("\\bmodule\\.([A-Za-z_][A-Za-z0-9_-]*)(?:\\[[^]]*])?\\.([A-Za-z_][A-Za-z0-9_-]*)");
        List<String> problems = new ArrayList<>();
        for (String dir : model.dirs()) {
            String text = model.text(dir);
            Set<String> variables = model.names(dir, "variable");
            Set<String> locals = model.names(dir, "locals");
            for (Matcher m = var.matcher(text); m.find(); ) {
                if (!variables.contains(m.group(1))) {
                    problems.add(where(dir) + ": var." + m.group(1) + " is not declared");
                }
            }
            for (Matcher m = local.matcher(text); m.find(); ) {
                if (!locals.contains(m.group(1))) {
                    problems.add(where(dir) + ": local." + m.group(1) + " is not defined");
                }
            }
            for (TerraformModel.Block call : inModule(model.blocks("module", ""), dir)) {
                String source = call.body().path("source").asText();
                String target = Path.of(dir).resolve(source).normalize().toString().replace('\\', '/');
                if (!model.dirs().contains(target)) {
                    problems.add(call.address() + ": source " + source + " has no .tf files");
                    continue;
                }
                Set<String> arguments = new TreeSet<>();
                call.body().fieldNames().forEachRemaining(arguments::add);
                arguments.removeAll(Set.of("source", "for_each", "count", "depends_on", "providers"));
                Set<String> declared = model.names(target, "variable");
                for (String argument : arguments) {
                    if (!declared.contains(argument)) {
                        problems.add(call.address() + ": module " + target + " has no variable " + argument);
                    }
                }
                for (TerraformModel.Block variable : model.blocks("variable", "")) {
                    if (variable.dir().equals(target) && !variable.body().has("default")
                            && !arguments.contains(variable.name())) {
                        problems.add(call.address() + ": required variable " + variable.name() + " is not set");
                    }
                }
                Set<String> outputs = model.names(target, "output");
                for (Matcher m = moduleOutput.matcher(text); m.find(); ) {
                    if (m.group(1).equals(call.name()) && !outputs.contains(m.group(2))) {
                        problems.add(where(dir) + ": module." + call.name() + "." + m.group(2) + " is not an output of "
                                + target);
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    private static String where(String dir) {
        return dir.isEmpty() ? "terraform/" : "terraform/" + dir;
    }

    @Test
    void noIamStatementGrantsByWildcard() {
        assertThat(IamWildcards.statements(model)).hasSizeGreaterThan(10);
        assertThat(IamWildcards.violations(model)).isEmpty();

        // Policies only come from policy documents, so the check above sees every statement.
        for (String type : List.of("aws_iam_role_policy", "aws_iam_policy", "aws_s3_bucket_policy")) {
            for (TerraformModel.Block policy : model.blocks("resource", type)) {
                assertThat(policy.body().path("policy").asText()).as(policy.address())
                        .matches("\\$\\{(data\\.aws_iam_policy_document\\.[a-z_]+(\\[[^]]+])?\\.json|var\\.policy_json)}");
            }
        }
        for (TerraformModel.Block module : model.blocks("module", "")) {
            if (module.body().has("policy_json")) {
                assertThat(module.body().path("policy_json").asText()).as(module.address())
                        .isEqualTo("${local.function_policies[each.key]}");
            }
        }
        model.local("", "function_policies").fields().forEachRemaining(e -> assertThat(e.getValue().asText())
                .as("policy of " + e.getKey()).matches("\\$\\{data\\.aws_iam_policy_document\\.[a-z_]+\\.json}"));
        Matcher managed = MANAGED_POLICY.matcher(model.allText());
        while (managed.find()) {
            assertThat(ALLOWED_MANAGED_POLICIES).as("AWS-managed policy attached").contains(managed.group(1));
        }
    }

    @Test
    void theWildcardCheckFindsWildcards(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("bad.tf"), """
                locals {
                  everything = "*"
                  every_bucket = "arn:aws:s3:::*"
                  prefix = "arn:aws:s3:::tables"
                }
                data "aws_iam_policy_document" "bad" {
                  statement {
                    sid       = "AllS3"
                    actions   = ["s3:*"]
                    resources = ["${local.prefix}/*"]
                  }
                  statement {
                    sid       = "Everything"
                    actions   = ["s3:GetObject"]
                    resources = [local.everything]
                  }
                  statement {
                    sid       = "EveryBucket"
                    actions   = ["s3:GetObject"]
                    resources = ["${local.every_bucket}"]
                  }
                  statement {
                    sid       = "AnyRegion"
                    actions   = ["kms:Decrypt"]
                    resources = ["arn:aws:kms:*:123456789012:key/abc"]
                  }
                  dynamic "statement" {
                    for_each = [1]
                    content {
                      sid         = "Inverse"
                      actions     = ["s3:GetObject"]
                      not_resources = ["arn:aws:s3:::tables/private/*"]
                      resources   = ["arn:aws:s3:::tables/*"]
                    }
                  }
                }
                """);
        List<String> violations = IamWildcards.violations(new TerraformModel(hcl.parseTree(dir)));
        assertThat(String.join("\n", violations))
                .contains("AllS3: action \"s3:*\"")
                .contains("Everything: resource")
                .contains("EveryBucket: resource")
                .contains("AnyRegion: resource")
                .contains("Inverse: uses not_resources");
        assertThat(violations).hasSize(5);
    }

    @Test
    void terraformIsFormatted() throws Exception {
        assumeTrue(HclJson.available("terraform"), "terraform is not on the PATH: fmt check left to terraform.yml");
        HclJson.Result fmt = HclJson.run(TERRAFORM, 120, "terraform", "fmt", "-check", "-recursive", "-diff");
        assertThat(fmt.exitCode()).as("terraform fmt -check -recursive -diff:\n" + fmt.output()).isZero();
    }

    private static boolean refersTo(JsonNode value, String dir, String function) {
        Matcher m = FUNCTION_REFERENCE.matcher(model.resolve(value, dir));
        while (m.find()) {
            if (m.group(1).equals(function)) {
                return true;
            }
        }
        return false;
    }

    private static Set<String> functionsUsingPolicy(String document) {
        JsonNode policies = model.local("", "function_policies");
        Set<String> users = new TreeSet<>();
        policies.fields().forEachRemaining(e -> {
            if (e.getValue().asText().equals("${data.aws_iam_policy_document." + document + ".json}")) {
                users.add(e.getKey());
            }
        });
        return users;
    }

    private static String reference(String expression, String prefix, String suffix) {
        assertThat(expression).startsWith("${" + prefix).endsWith(suffix + "}");
        return expression.substring(2 + prefix.length(), expression.length() - suffix.length() - 1);
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        if (array != null) {
            array.forEach(n -> texts.add(n.asText()));
        }
        return texts;
    }

    private static List<TerraformModel.Block> inModule(List<TerraformModel.Block> blocks, String dir) {
        return blocks.stream().filter(b -> b.dir().equals(dir)).toList();
    }

    private static TerraformModel.Block single(
            List<TerraformModel.Block> blocks, java.util.function.Predicate<TerraformModel.Block> which) {
        List<TerraformModel.Block> matching = blocks.stream().filter(which).toList();
        assertThat(matching).as("matching blocks among " + blocks.stream().map(TerraformModel.Block::address)
                .collect(Collectors.joining(", "))).hasSize(1);
        return matching.get(0);
    }
}
