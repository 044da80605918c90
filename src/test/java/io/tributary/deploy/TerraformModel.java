package io.tributary.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Read-only queries over HCL JSON of a Terraform tree: blocks by kind and type, and expressions with their module's
 * plain {@code local.name} references substituted, so a check can see what an expression really names.
 */
final class TerraformModel {

    /** One block: {@code kind} is resource, data or module; {@code dir} is the module directory ("" for the root). */
    record Block(String file, String dir, String kind, String type, String name, JsonNode body) {
        String address() {
            return file + ": " + kind + (type.isEmpty() ? "" : " " + type) + " " + name;
        }
    }

    // local.name not followed by an index or attribute: those keep their key so references stay visible.
    private static final Pattern WHOLE_LOCAL = Pattern.compile("\\$\\{local\\.([A-Za-z_][A-Za-z0-9_-]*)}");
    private static final Pattern BARE_LOCAL = Pattern.compile("local\\.([A-Za-z_][A-Za-z0-9_-]*)(?![A-Za-z0-9_\\[.-])");

    private final JsonNode files;

    TerraformModel(JsonNode files) {
        this.files = files;
    }

    List<Block> blocks(String kind, String type) {
        List<Block> blocks = new ArrayList<>();
        for (Iterator<String> names = files.fieldNames(); names.hasNext(); ) {
            String file = names.next();
            JsonNode byKind = files.get(file).get(kind);
            if (byKind == null) {
                continue;
            }
            if (type.isEmpty()) { // module, variable, output: keyed by name only
                collect(blocks, file, kind, "", byKind);
            } else if (byKind.has(type)) {
                collect(blocks, file, kind, type, byKind.get(type));
            }
        }
        return blocks;
    }

    private static void collect(List<Block> into, String file, String kind, String type, JsonNode byName) {
        byName.fields().forEachRemaining(e -> e.getValue().forEach(body ->
                into.add(new Block(file, dirOf(file), kind, type, e.getKey(), body))));
    }

    /** The locals of the module in {@code dir}, each as expression text. */
    Map<String, String> locals(String dir) {
        Map<String, String> locals = new HashMap<>();
        files.fields().forEachRemaining(file -> {
            if (dirOf(file.getKey()).equals(dir) && file.getValue().has("locals")) {
                file.getValue().get("locals").forEach(block ->
                        block.fields().forEachRemaining(l -> locals.put(l.getKey(), text(l.getValue()))));
            }
        });
        return locals;
    }

    /** The value of one local of the module in {@code dir}, or null. */
    JsonNode local(String dir, String name) {
        JsonNode[] found = {null};
        files.fields().forEachRemaining(file -> {
            if (dirOf(file.getKey()).equals(dir) && file.getValue().has("locals")) {
                file.getValue().get("locals").forEach(block -> {
                    if (block.has(name)) {
                        found[0] = block.get(name);
                    }
                });
            }
        });
        return found[0];
    }

    /** Module directories: "" for the root, then every directory holding .tf files. */
    Set<String> dirs() {
        Set<String> dirs = new TreeSet<>();
        files.fieldNames().forEachRemaining(f -> dirs.add(dirOf(f)));
        return dirs;
    }

    /** The names of the top-level blocks of one kind (variable, output, locals keys, module) in a module. */
    Set<String> names(String dir, String kind) {
        Set<String> names = new TreeSet<>();
        files.fields().forEachRemaining(file -> {
            JsonNode byKind = file.getValue().get(kind);
            if (dirOf(file.getKey()).equals(dir) && byKind != null) {
                if (byKind.isArray()) {
                    byKind.forEach(block -> block.fieldNames().forEachRemaining(names::add));
                } else {
                    byKind.fieldNames().forEachRemaining(names::add);
                }
            }
        });
        return names;
    }

    /** All files of one module as text. */
    String text(String dir) {
        StringBuilder text = new StringBuilder();
        files.fields().forEachRemaining(file -> {
            if (dirOf(file.getKey()).equals(dir)) {
                text.append(file.getValue()).append('\n');
            }
        });
        return text.toString();
    }

    /** The whole tree as text, for checks over every reference. */
    String allText() {
        return files.toString();
    }

    /**
     * {@code value} as text with the local references of its module replaced by their expressions: an interpolation
     * of just a local ({@code ${local.x}}) by the local's own template, any other bare reference by the expression
     * in parentheses. Indexed references ({@code local.x["k"]}) are kept, so the key they name stays visible.
     */
    String resolve(JsonNode value, String dir) {
        Map<String, String> locals = locals(dir);
        String text = text(value);
        for (int depth = 0; depth < 8; depth++) {
            String next = substitute(WHOLE_LOCAL, text, locals, false);
            next = substitute(BARE_LOCAL, next, locals, true);
            if (next.equals(text)) {
                break;
            }
            text = next;
        }
        return text;
    }

    private static String substitute(Pattern pattern, String text, Map<String, String> locals, boolean wrap) {
        Matcher m = pattern.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String expression = locals.get(m.group(1));
            String replacement = expression == null ? m.group() : wrap ? "(" + expression + ")" : expression;
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    static String text(JsonNode value) {
        return value == null ? "" : value.isTextual() ? value.asText() : value.toString();
    }

    private static String dirOf(String file) {
        int slash = file.lastIndexOf('/');
        return slash < 0 ? "" : file.substring(0, slash);
    }
}
