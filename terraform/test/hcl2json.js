// Prints every *.tf file under the directory given as the only argument as one JSON object,
// { "<path relative to that directory>": <the file as HCL JSON> }, using HashiCorp's own HCL parser
// (compiled to WebAssembly in @cdktf/hcl2json). A syntax error exits non-zero naming the file.
"use strict";
const fs = require("fs");
const path = require("path");
const { parse } = require("@cdktf/hcl2json");

function tfFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return entry.name.startsWith(".") || entry.name === "node_modules" ? [] : tfFiles(full);
    }
    return entry.name.endsWith(".tf") ? [full] : [];
  });
}

async function main() {
  const root = path.resolve(process.argv[2] || ".");
  const result = {};
  for (const file of tfFiles(root).sort()) {
    const relative = path.relative(root, file).split(path.sep).join("/");
    try {
      result[relative] = await parse(relative, fs.readFileSync(file, "utf8"));
    } catch (e) {
      throw new Error(`${relative}: ${e.message || e}`);
    }
  }
  process.stdout.write(JSON.stringify(result));
}

main().catch((e) => {
  process.stderr.write(`hcl2json: ${e.message || e}\n`);
  process.exit(1);
});
