package io.tributary.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The IAM of terraform/ grants nothing by wildcard, attaches only the AWS-managed policies Lambda needs, and lets the
 * functions that manage event source mappings do so for ingest only, with every setting they require.
 */
class TerraformIamTest extends TerraformParsed {

    private static final Set<String> ALLOWED_MANAGED_POLICIES = Set.of(
            "service-role/AWSLambdaVPCAccessExecutionRole", "service-role/AWSLambdaMSKExecutionRole");
    private static final Pattern MANAGED_POLICY = Pattern.compile(":iam::aws:policy/([A-Za-z0-9/_-]+)");

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

    /**
     * Every function writes table data files, and each removes those of a batch it will not commit: the ingest
     * function when the write fence finds the stream deleted under it or one part of a parallel batch fails
     * (StreamIngester, ParallelFiles; SPEC 2.3, lambda.ingest.IngestAfterDeleteTest), stream-api's pushes likewise,
     * backfill a merge round or compaction that lost. The removal is best effort (a refusal is only logged), so
     * without s3:DeleteObject the ingest function left its Parquet files under a deleted stream's location on AWS.
     */
    @Test
    void everyFunctionMayRemoveTheDataFilesItDoesNotCommit() throws Exception {
        for (String function : FunctionConfigs.names(REPO)) {
            String document = reference(model.local("", "function_policies").path(function).asText(),
                    "data.aws_iam_policy_document.", ".json");
            assertThat(IamWildcards.statements(model)).as(function + " may write and remove the tables' files")
                    .anySatisfy(s -> {
                        assertThat(s.document().name()).isEqualTo(document);
                        assertThat(texts(s.body().get("actions"))).contains("s3:PutObject", "s3:DeleteObject");
                        assertThat(texts(s.body().get("resources"))).contains("${local.warehouse_tables}");
                    });
        }
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
}
