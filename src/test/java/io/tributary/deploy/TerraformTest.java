package io.tributary.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Terraform in terraform/, parsed with HashiCorp's HCL parser, deploys every function of function-configs/ with
 * its trigger and every reference resolves (its IAM: {@link TerraformIamTest}). {@code terraform fmt -check} runs
 * here too when terraform is on the PATH; {@code init} and {@code validate} need the providers and run in
 * .github/workflows/terraform.yml.
 */
class TerraformTest extends TerraformParsed {

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

    /**
     * The buckets iam.tf lets stream-api read backfill sources from are roots it accepts tables in: a stream names its
     * backfill source as a registered table, and registering one outside the warehouse needs its root in
     * TRIBUTARY_EXTERNAL_LOCATIONS (SPEC 2.4). Without it every backfill source there was a 403 naming the setting,
     * and backfill_source_bucket_arns granted a read nothing could use.
     */
    @Test
    void backfillSourceBucketsAreLocationsStreamApiAccepts() {
        String environment = model.resolve(model.local("", "extra_environment").get("stream-api"), "");
        assertThat(environment).contains("TRIBUTARY_EXTERNAL_LOCATIONS").contains("var.backfill_source_bucket_arns")
                .contains("s3://");
        assertThat(model.resolve(model.local("", "backfill_source_objects"), "")).as("what iam.tf grants")
                .contains("var.backfill_source_bucket_arns");
    }

    /**
     * The functions reach the schema registries streams name on their own ports: stream-api reads a subject at create,
     * ingest fetches the schemas of the ids its records carry (schema.RegistryClient). Their group's egress was 443 and
     * the Kafka ports only, so a registry on any other port (Confluent Schema Registry's 8081, Apicurio's 8080) could
     * be reached by nothing on AWS.
     */
    @Test
    void theFunctionsReachSchemaRegistriesOnThePortsTheDeploymentNames() {
        TerraformModel.Block rule = single(inModule(model.blocks("resource", "aws_vpc_security_group_egress_rule"),
                "modules/network"), b -> b.name().equals("functions_schema_registry"));
        assertThat(model.resolve(rule.body().get("for_each"), "modules/network")).contains("var.schema_registry_ports");
        assertThat(model.resolve(rule.body().get("security_group_id"), "modules/network"))
                .contains("aws_security_group.functions.id");
        TerraformModel.Block network = single(model.blocks("module", ""), b -> b.name().equals("network"));
        assertThat(network.body().path("schema_registry_ports").asText()).isEqualTo("${var.schema_registry_ports}");
        assertThat(single(inModule(model.blocks("variable", ""), ""), b -> b.name().equals("schema_registry_ports")).body().toString()).contains("8081");
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

    private static void assertHttpApiRoute(String function) throws IOException {
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
                b -> b.body().path("target").asText().contains("aws_apigatewayv2_integration." + integration.name())
                        && b.body().path("for_each").asText().contains("var.route_keys"));
        // The console's static files are the only routes without the authorizer (function.trigger.public-routes).
        TerraformModel.Block open = single(inModule(model.blocks("resource", "aws_apigatewayv2_route"), dir),
                b -> !b.name().equals(route.name()));
        assertThat(open.body().path("for_each").asText()).contains("var.public_route_keys");
        assertThat(open.body().path("authorization_type").asText()).isEqualTo("NONE");
        assertThat(model.resolve(api.body().get("public_route_keys"), "")).contains("function.trigger.public-routes");
        for (String key : FunctionConfigs.load(REPO, function).getProperty("function.trigger.public-routes", "").split(",")) {
            assertThat(key.trim()).as("a route without the authorizer").matches("GET /console(/\\{proxy\\+})?");
        }
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
    void terraformIsFormatted() throws Exception {
        assumeTrue(HclJson.available("terraform"), "terraform is not on the PATH: fmt check left to terraform.yml");
        HclJson.Result fmt = HclJson.run(TERRAFORM, 120, "terraform", "fmt", "-check", "-recursive", "-diff");
        assertThat(fmt.exitCode()).as("terraform fmt -check -recursive -diff:\n" + fmt.output()).isZero();
    }
}
