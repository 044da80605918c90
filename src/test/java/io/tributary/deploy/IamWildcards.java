package io.tributary.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds IAM statements that grant by wildcard: an action containing {@code *}, the resource {@code *}, an ARN with a
 * wildcard partition, service, region or account, or a resource part that starts with {@code *} (such as
 * {@code arn:aws:s3:::*}). A wildcard after a concrete prefix ({@code <bucket ARN>/warehouse/*}) names resources by
 * ARN and is allowed. Resource expressions are judged after substituting locals; other references (resource
 * attributes, validated variables) count as concrete.
 */
final class IamWildcards {

    private static final Pattern INNERMOST_INTERPOLATION = Pattern.compile("\\$\\{[^{}]*}");
    private static final Pattern ARN = Pattern.compile("arn:[^\"\\s,\\]]*");

    private IamWildcards() {}

    /** One statement of one policy document, with the document's address. */
    record Statement(TerraformModel.Block document, JsonNode body) {}

    static List<Statement> statements(TerraformModel model) {
        List<Statement> statements = new ArrayList<>();
        for (TerraformModel.Block doc : model.blocks("data", "aws_iam_policy_document")) {
            doc.body().path("statement").forEach(s -> statements.add(new Statement(doc, s)));
            doc.body().path("dynamic").path("statement").forEach(d ->
                    d.path("content").forEach(s -> statements.add(new Statement(doc, s))));
        }
        return statements;
    }

    static List<String> violations(TerraformModel model) {
        List<String> violations = new ArrayList<>();
        for (Statement statement : statements(model)) {
            String where = statement.document().address() + " statement "
                    + statement.body().path("sid").asText("(no sid)");
            for (String inverse : List.of("not_actions", "not_resources")) {
                if (statement.body().has(inverse)) {
                    violations.add(where + ": uses " + inverse + ", which grants everything else");
                }
            }
            JsonNode actions = statement.body().get("actions");
            if (actions == null || !actions.isArray()) {
                violations.add(where + ": actions must be a literal list");
            } else {
                actions.forEach(a -> {
                    if (!a.isTextual() || a.asText().contains("*") || a.asText().contains("${")) {
                        violations.add(where + ": action " + a + " is not one named action");
                    }
                });
            }
            JsonNode resources = statement.body().get("resources");
            if (resources == null && statement.body().has("principals")) {
                continue; // a trust policy: it names who may act, on the resource it is attached to
            }
            if (resources == null) {
                violations.add(where + ": has no resources (IAM reads that as every resource)");
            } else {
                for (JsonNode resource : resources.isArray() ? resources : List.of(resources)) {
                    String problem = resourceProblem(model.resolve(resource, statement.document().dir()));
                    if (problem != null) {
                        violations.add(where + ": resource " + resource + " " + problem);
                    }
                }
            }
        }
        return violations;
    }

    private static String resourceProblem(String resolved) {
        String text = collapse(resolved).trim();
        if (text.equals("*") || text.contains("\"*\"")) {
            return "is the wildcard resource";
        }
        Matcher arns = ARN.matcher(text);
        while (arns.find()) {
            String[] parts = arns.group().split(":", 6);
            if (parts.length < 6) {
                return "is not a complete ARN (" + arns.group() + ")";
            }
            for (int i = 1; i <= 4; i++) {
                if (parts[i].contains("*")) {
                    return "has a wildcard partition, service, region or account (" + arns.group() + ")";
                }
            }
            if (parts[5].isEmpty() || parts[5].startsWith("*")) {
                return "names every resource of its service (" + arns.group() + ")";
            }
        }
        return null;
    }

    /** Replaces every interpolation, innermost first, with an opaque concrete token. */
    private static String collapse(String text) {
        String previous;
        do {
            previous = text;
            text = INNERMOST_INTERPOLATION.matcher(text).replaceAll("X");
        } while (!text.equals(previous));
        return text;
    }
}
